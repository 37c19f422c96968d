/** Placeholder: the templates engineer builds this page. */
export function TemplatesPage(_props: { params: Record<string, string> }) {
  return <h1>TemplatesPage</h1>;
}
