/** Placeholder: the templates engineer builds this page. */
export function TemplateEditPage(_props: { params: Record<string, string> }) {
  return <h1>TemplateEditPage</h1>;
}
