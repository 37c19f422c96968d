/** Placeholder: the bulk-send engineer builds this page. */
export function BulkSendsPage(_props: { params: Record<string, string> }) {
  return <h1>BulkSendsPage</h1>;
}
