/** Module resolve hook: resolves workspace packages to their TypeScript sources (`@stratbox/source` export condition). */
export async function resolve(specifier, context, nextResolve) {
  return nextResolve(specifier, { ...context, conditions: [...context.conditions, '@stratbox/source'] });
}
