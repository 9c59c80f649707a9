import type { RouteOutput } from '@stratbox/client';

/** A listing as the API answers it (never its strategy's source: the API has none to give). */
export type Listing = RouteOutput<'marketplace.get'>;
export type Purchase = RouteOutput<'marketplace.purchase'>;
export type Review = RouteOutput<'marketplace.review'>;
