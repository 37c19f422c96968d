/** A value the signer cannot change: filled automatically, by another recipient, or signed with the token. */
export function ReadOnlyField({ id, text, description }: { id: string; text: string; description: string }) {
  return (
    <div className="readonly" id={id} role="note" aria-label={description} title={description}>
      <span aria-hidden="true">{text}</span>
    </div>
  );
}
