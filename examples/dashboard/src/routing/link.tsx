import type { AnchorHTMLAttributes, MouseEvent } from 'react';
import { navigate } from './navigate.js';
import { routePath, type Route } from './route.js';

type LinkProps = Omit<AnchorHTMLAttributes<HTMLAnchorElement>, 'href'> & { to: Route };

/** A real link (it opens in a new tab with a modified click) that moves inside the page otherwise. */
export function Link({ to, onClick, ...rest }: LinkProps) {
  const href = routePath(to);
  const follow = (event: MouseEvent<HTMLAnchorElement>) => {
    onClick?.(event);
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    navigate(href);
  };
  return <a href={href} onClick={follow} {...rest} />;
}
