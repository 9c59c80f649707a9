/** The server's problems with one form field, shown under it; `id` is what the field's `aria-describedby` names. */
export function FieldError({ id, messages }: { id: string; messages: string[] | undefined }) {
  if (!messages || messages.length === 0) return null;
  return (
    <p className="field-error" id={id}>
      {messages.join('; ')}
    </p>
  );
}
