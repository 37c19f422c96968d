/** Placeholder: the templates engineer builds this page. */
export function TemplateDetailPage(_props: { params: Record<string, string> }) {
  return <h1>TemplateDetailPage</h1>;
}
