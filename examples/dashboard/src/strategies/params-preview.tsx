import type { ParamSpec, StrategyMetaView } from './read-strategy-meta.js';

/** `2 to 200`, `one of a, b`, `at most 20 characters`. */
export function paramBounds(spec: ParamSpec): string {
  if (spec.type === 'enum') return `one of ${spec.values.join(', ')}`;
  if (spec.type === 'string') return spec.maxLength === undefined ? '' : `at most ${spec.maxLength} characters`;
  if (!('min' in spec) && !('max' in spec)) return '';
  if (spec.min !== undefined && spec.max !== undefined) return `${spec.min} to ${spec.max}`;
  return spec.min !== undefined ? `at least ${spec.min}` : spec.max !== undefined ? `at most ${spec.max}` : '';
}

/** The strategy's parameters as read from its source (`meta.params`), updated as it is edited. */
export function ParamsPreview({ meta }: { meta: StrategyMetaView }) {
  const names = Object.keys(meta.params);
  return (
    <section className="params-preview" aria-labelledby="params-preview-title">
      <h2 id="params-preview-title">Parameters</h2>
      {names.length === 0 ? (
        <p className="muted">{meta.found ? 'meta declares no parameters this page can read.' : 'No meta export: the strategy takes no parameters.'}</p>
      ) : (
        <table>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Type</th>
              <th scope="col">Default</th>
              <th scope="col">Allowed</th>
              <th scope="col">Description</th>
            </tr>
          </thead>
          <tbody>
            {names.map((name) => {
              const spec = meta.params[name]!;
              return (
                <tr key={name}>
                  <th scope="row">
                    <code>{name}</code>
                  </th>
                  <td>{spec.type}</td>
                  <td>{spec.default === undefined ? <span className="muted">required</span> : String(spec.default)}</td>
                  <td>{paramBounds(spec)}</td>
                  <td>{spec.description ?? ''}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
      {meta.unreadable.length > 0 ? (
        <p className="muted">Computed in code, so not shown here (the service still checks them): {meta.unreadable.map((n) => `\`${n}\``).join(', ')}.</p>
      ) : null}
      <p className="muted small">Read from the source as written: the service answers no route with a strategy's meta, and this page never runs the code.</p>
    </section>
  );
}
