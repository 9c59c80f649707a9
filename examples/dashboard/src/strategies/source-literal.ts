import type { SyntaxNode } from '@lezer/common';

/** A value written as a literal in a source, with where it is; `readable` is false for anything computed. */
export interface Located {
  from: number;
  to: number;
  readable: boolean;
  value: unknown;
  /** An object literal's properties by name, each located on the whole `name: value`. */
  props?: Map<string, Located>;
}

const ESCAPES: Record<string, string> = { n: '\n', r: '\r', t: '\t', b: '\b', f: '\f', v: '\v', '0': '\0' };

/** The value of a quoted string literal, escapes included. */
function unquote(text: string): string {
  return text.slice(1, -1).replace(/\\(u\{[0-9a-fA-F]+\}|u[0-9a-fA-F]{4}|x[0-9a-fA-F]{2}|\r?\n|.)/g, (_m, esc: string) => {
    if (esc.startsWith('u{')) return String.fromCodePoint(Number.parseInt(esc.slice(2, -1), 16));
    if (esc.length > 1 && (esc[0] === 'u' || esc[0] === 'x')) return String.fromCharCode(Number.parseInt(esc.slice(1), 16));
    if (esc.endsWith('\n')) return '';
    return ESCAPES[esc] ?? esc;
  });
}

function children(node: SyntaxNode): SyntaxNode[] {
  const out: SyntaxNode[] = [];
  for (let child = node.firstChild; child; child = child.nextSibling) out.push(child);
  return out;
}

/** `x as const`, `x satisfies T` and `(x)` are `x`. */
export function unwrap(node: SyntaxNode, source: string): SyntaxNode {
  if (node.name === 'ParenthesizedExpression') {
    const inner = children(node).find((c) => c.name !== '(' && c.name !== ')');
    return inner ? unwrap(inner, source) : node;
  }
  if (node.name === 'BinaryExpression') {
    const [left, op] = children(node);
    const word = op ? source.slice(op.from, op.to) : '';
    if (left && (word === 'as' || word === 'satisfies')) return unwrap(left, source);
  }
  return node;
}

/**
 * The value of a literal expression in a Lezer JavaScript/TypeScript tree: numbers (a leading
 * minus too), strings, booleans, null, arrays and objects of those. Computed parts are marked
 * unreadable, never evaluated: the strategy's code runs only in the service's sandbox.
 */
export function readLiteral(raw: SyntaxNode, source: string): Located {
  const node = unwrap(raw, source);
  const at = { from: raw.from, to: raw.to };
  const text = source.slice(node.from, node.to);
  switch (node.name) {
    case 'Number': {
      const value = Number(text.replaceAll('_', ''));
      return { ...at, readable: !Number.isNaN(value), value };
    }
    case 'UnaryExpression': {
      const [op, operand] = children(node);
      const inner = operand ? readLiteral(operand, source) : null;
      const sign = op ? source.slice(op.from, op.to) : '';
      if (inner?.readable && typeof inner.value === 'number' && (sign === '-' || sign === '+')) {
        return { ...at, readable: true, value: sign === '-' ? -inner.value : inner.value };
      }
      return { ...at, readable: false, value: undefined };
    }
    case 'String':
      return { ...at, readable: true, value: unquote(text) };
    case 'TemplateString':
      return text.includes('${') ? { ...at, readable: false, value: undefined } : { ...at, readable: true, value: text.slice(1, -1) };
    case 'BooleanLiteral':
      return { ...at, readable: true, value: text === 'true' };
    case 'null':
      return { ...at, readable: true, value: null };
    case 'ArrayExpression': {
      const items = children(node)
        .filter((c) => !['[', ']', ','].includes(c.name))
        .map((c) => readLiteral(c, source));
      return { ...at, readable: items.every((i) => i.readable), value: items.map((i) => i.value) };
    }
    case 'ObjectExpression':
      return readObject(node, at, source);
    default:
      return { ...at, readable: false, value: undefined };
  }
}

function readObject(node: SyntaxNode, at: { from: number; to: number }, source: string): Located {
  const props = new Map<string, Located>();
  const value: Record<string, unknown> = {};
  let readable = true;
  for (const property of children(node).filter((c) => c.name === 'Property')) {
    const [key, , valueNode] = children(property);
    const name =
      key?.name === 'PropertyDefinition' || key?.name === 'Number'
        ? source.slice(key.from, key.to)
        : key?.name === 'String'
          ? unquote(source.slice(key.from, key.to))
          : null;
    if (name === null || !valueNode) {
      readable = false; // a computed key, a spread or a method
      continue;
    }
    const located = readLiteral(valueNode, source);
    props.set(name, { ...located, from: property.from, to: property.to });
    value[name] = located.value;
    if (!located.readable) readable = false;
  }
  return { ...at, readable, value, props };
}
