/** Placeholder: the templates engineer builds this page. */
export function TemplateNewPage(_props: { params: Record<string, string> }) {
  return <h1>TemplateNewPage</h1>;
}
