/** Placeholder: the bulk-send engineer builds this page. */
export function BulkSendDetailPage(_props: { params: Record<string, string> }) {
  return <h1>BulkSendDetailPage</h1>;
}
