/** Placeholder: the bulk-send engineer builds this page. */
export function NewBulkSendPage(_props: { params: Record<string, string> }) {
  return <h1>NewBulkSendPage</h1>;
}
