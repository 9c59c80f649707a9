import { createElement, type ReactElement, Suspense } from 'react';
import { renderToString } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { createLazyPage } from './lazy-page.js';

const Greeting = ({ name }: { name: string }): ReactElement => createElement('p', null, `Hello ${name}`);
const show = (Page: (props: { name: string }) => ReactElement) =>
  renderToString(createElement(Suspense, { fallback: createElement('p', null, 'Loading the page…') }, createElement(Page, { name: 'Ada' })));

describe('createLazyPage', () => {
  it('shows the loading step until its code is loaded, and the page itself on the first render after preload()', async () => {
    let loads = 0;
    const Page = createLazyPage(async () => {
      loads++;
      return Greeting;
    });
    expect(show(Page)).toContain('Loading the page…');
    await Page.preload();
    await Page.preload();
    expect(show(Page)).toContain('Hello Ada');
    expect(show(Page)).not.toContain('Loading');
    expect(loads).toBe(1);
  });

  it('reports a failed load, and loads again on the next preload()', async () => {
    let loads = 0;
    const Page = createLazyPage(async () => {
      loads++;
      if (loads === 1) throw new Error('Failed to fetch dynamically imported module');
      return Greeting;
    });
    await expect(Page.preload()).rejects.toThrow('Failed to fetch');
    await Page.preload();
    expect(show(Page)).toContain('Hello Ada');
    expect(loads).toBe(2);
  });
});
