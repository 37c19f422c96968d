/**
 * A value the signer cannot change: filled automatically, by another recipient, or signed with the token.
 * `wrap`: a sentence (the token's note in a Signature field) wraps inside the box instead of being cut off.
 */
export function ReadOnlyField({
  id,
  text,
  description,
  wrap = false,
}: {
  id: string;
  text: string;
  description: string;
  wrap?: boolean;
}) {
  return (
    <div
      className={wrap ? 'readonly wrap' : 'readonly'}
      id={id}
      role="note"
      aria-label={description}
      title={description}
    >
      <span aria-hidden="true">{text}</span>
    </div>
  );
}
