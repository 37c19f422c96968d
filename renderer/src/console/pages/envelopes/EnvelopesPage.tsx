/** Placeholder: the envelopes engineer builds this page. */
export function EnvelopesPage(_props: { params: Record<string, string> }) {
  return <h1>EnvelopesPage</h1>;
}
