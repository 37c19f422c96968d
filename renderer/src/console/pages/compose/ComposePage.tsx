/** Placeholder: the compose engineer builds this page. */
export function ComposePage(_props: { params: Record<string, string> }) {
  return <h1>ComposePage</h1>;
}
