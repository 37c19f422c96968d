/** Placeholder: the templates engineer builds this page. */
export function UseTemplatePage(_props: { params: Record<string, string> }) {
  return <h1>UseTemplatePage</h1>;
}
