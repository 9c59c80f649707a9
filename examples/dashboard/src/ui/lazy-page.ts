import { type ComponentType, createElement, type ReactElement, use } from 'react';

/** A page whose code is loaded when first needed, or earlier with `preload()`. */
export interface LazyPage<P extends object> {
  (props: P): ReactElement;
  /**
   * Starts loading the page's code (once; again after a failure) and settles when it is loaded.
   * A page rendered after that renders at once: it does not suspend, so no Suspense fallback
   * (and no wait for React's reveal throttle) comes before it.
   */
  preload(): Promise<void>;
}

/**
 * A page loaded on demand (its module is a chunk of its own). Unlike `React.lazy`, a page whose
 * code was preloaded renders on the first try; one that was not suspends (`use`) until its code
 * arrives. Either way it renders the loaded component itself, so the page keeps its state when
 * it renders again after its code arrived. A load that failed is thrown to the nearest error
 * boundary whenever the page renders (as `React.lazy` does; no retry loop); `preload()` tries again.
 */
export function createLazyPage<P extends object>(load: () => Promise<ComponentType<P>>): LazyPage<P> {
  let loaded: ComponentType<P> | undefined;
  let loading: Promise<ComponentType<P>> | undefined;
  let failed = false;
  const start = () => {
    if (!loading || failed) {
      failed = false;
      loading = load().then(
        (component) => (loaded = component),
        (error: unknown) => {
          failed = true;
          throw error;
        },
      );
    }
    return loading;
  };
  // biome-ignore lint/correctness/noComponentHookFactories: made once per page, at module load (pages.ts), never during a render
  const Page = (props: P) => createElement(loaded ?? use(loading ?? start()), props);
  return Object.assign(Page, { preload: () => start().then(() => undefined) });
}
