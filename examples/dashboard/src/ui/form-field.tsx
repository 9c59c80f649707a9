import type { ReactNode } from 'react';
import { FieldError } from './field-error.js';

interface FormFieldProps {
  id: string;
  label: string;
  hint?: string;
  errors?: string[] | undefined;
  /** The field takes the room left in its row. */
  grow?: boolean;
  /** The input, given the ids that describe it. */
  children(describedBy: string | undefined, invalid: boolean): ReactNode;
}

/** A label, an input, its hint and the service's problems with it, tied together for screen readers. */
export function FormField({ id, label, hint, errors, grow, children }: FormFieldProps) {
  const describedBy = [hint ? `${id}-hint` : '', errors?.length ? `${id}-error` : ''].filter(Boolean).join(' ') || undefined;
  return (
    <div className={grow ? 'field grow' : 'field'}>
      <label htmlFor={id}>{label}</label>
      {children(describedBy, Boolean(errors?.length))}
      {hint ? (
        <span className="hint" id={`${id}-hint`}>
          {hint}
        </span>
      ) : null}
      <FieldError id={`${id}-error`} messages={errors} />
    </div>
  );
}
