/** Placeholder: the envelopes engineer builds this page. */
export function EnvelopeDetailPage(_props: { params: Record<string, string> }) {
  return <h1>EnvelopeDetailPage</h1>;
}
