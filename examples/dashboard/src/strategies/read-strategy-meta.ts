import { typescriptLanguage } from '@codemirror/lang-javascript';
import type { SyntaxNode } from '@lezer/common';
import { type Located, readLiteral } from './source-literal.js';

/** One entry of `meta.params`, as docs/strategy-api.md describes it. */
export type ParamSpec =
  | { type: 'int' | 'float' | 'number'; default?: number; min?: number; max?: number; description?: string }
  | { type: 'bool' | 'boolean'; default?: boolean; description?: string }
  | { type: 'string'; default?: string; maxLength?: number; description?: string }
  | { type: 'enum'; values: string[]; default?: string; description?: string };

/** What the dashboard can tell of a strategy's `meta` from its source, without running it. */
export interface StrategyMetaView {
  /** A top-level `meta` declaration was found. */
  found: boolean;
  timeframe?: string;
  /** The parameters written as literals, in source order. */
  params: Record<string, ParamSpec>;
  /** Parameters whose spec is computed or not a valid spec: the service still knows them. */
  unreadable: string[];
  /** Where a `meta` path (`meta.params.fast.min`) is written: the deepest part found, or the declaration. */
  locate(path: string): { from: number; to: number } | null;
}

const NUMERIC = ['int', 'float', 'number'];
const BOOLEAN = ['bool', 'boolean'];

function field<T>(spec: Record<string, unknown>, name: string, type: 'number' | 'string' | 'boolean'): { [k: string]: T } {
  return typeof spec[name] === type ? { [name]: spec[name] as T } : {};
}

/** A param spec from a literal value, or null when it is not one the dashboard can show as a field. */
export function toParamSpec(value: unknown): ParamSpec | null {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return null;
  const spec = value as Record<string, unknown>;
  const type = spec.type;
  const description = field<string>(spec, 'description', 'string');
  if (typeof type !== 'string') return null;
  if (NUMERIC.includes(type)) {
    return { type: type as 'int', ...field(spec, 'default', 'number'), ...field(spec, 'min', 'number'), ...field(spec, 'max', 'number'), ...description };
  }
  if (BOOLEAN.includes(type)) return { type: type as 'bool', ...field(spec, 'default', 'boolean'), ...description };
  if (type === 'string') return { type, ...field(spec, 'default', 'string'), ...field(spec, 'maxLength', 'number'), ...description };
  if (type === 'enum' && Array.isArray(spec.values) && spec.values.every((v) => typeof v === 'string')) {
    return { type, values: spec.values as string[], ...field(spec, 'default', 'string'), ...description };
  }
  return null;
}

/** The initializer of the top-level `const meta = ...` (exported or not). */
function findMeta(top: SyntaxNode, source: string): SyntaxNode | null {
  for (let statement = top.firstChild; statement; statement = statement.nextSibling) {
    const declaration = statement.name === 'ExportDeclaration' ? statement.getChild('VariableDeclaration') : statement;
    if (declaration?.name !== 'VariableDeclaration') continue;
    for (let part = declaration.firstChild; part; part = part.nextSibling) {
      if (part.name !== 'VariableDefinition' || source.slice(part.from, part.to) !== 'meta') continue;
      let next = part.nextSibling;
      while (next && next.name !== 'Equals') next = next.nextSibling; // skip a type annotation
      return next?.nextSibling ?? null;
    }
  }
  return null;
}

/**
 * Reads `meta` from a strategy source with CodeMirror's own parser: the timeframe and each
 * parameter written as a literal. The service has no route that answers `meta`, so this is what
 * the backtest form can know; a computed `meta` is listed as unreadable, never evaluated.
 */
export function readStrategyMeta(source: string): StrategyMetaView {
  const tree = typescriptLanguage.parser.parse(source);
  const node = findMeta(tree.topNode, source);
  const meta: Located | null = node ? readLiteral(node, source) : null;
  const params: Record<string, ParamSpec> = {};
  const unreadable: string[] = [];
  const paramsNode = meta?.props?.get('params');
  for (const [name, located] of paramsNode?.props ?? []) {
    const spec = located.readable ? toParamSpec(located.value) : null;
    if (spec) params[name] = spec;
    else unreadable.push(name);
  }
  const timeframe = meta?.props?.get('timeframe');
  return {
    found: meta !== null,
    ...(timeframe?.readable && typeof timeframe.value === 'string' ? { timeframe: timeframe.value } : {}),
    params,
    unreadable,
    locate(path) {
      if (!meta) return null;
      let at: Located = meta;
      for (const part of path.split('.').slice(1)) {
        const next = at.props?.get(part);
        if (!next) break;
        at = next;
      }
      return { from: at.from, to: at.to };
    },
  };
}
