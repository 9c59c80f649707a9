import { Link } from '../routing/link.js';
import type { RunTarget } from './use-run-target.js';

/** A link to a run's strategy by its name (its listing's, when bought), or by its id while the name is not known. */
export function RunTargetLink({ target }: { target: RunTarget }) {
  return <Link to={target.page}>{target.name ?? <code>{target.id}</code>}</Link>;
}
