/**
 * Imports the public API of every published package, as a consumer would, so that compiling this
 * project with `skipLibCheck: false` type-checks every declaration they ship (and whatever those
 * declarations import). Nothing here runs.
 */
import * as contract from '@stratbox/contract';
import * as core from '@stratbox/core';
import * as coreContract from '@stratbox/core/contract';
import * as storeKysely from '@stratbox/store-kysely';
import * as adapterExpress from '@stratbox/adapter-express';
import * as adapterWs from '@stratbox/adapter-ws';
import * as client from '@stratbox/client';
import * as queueBullmq from '@stratbox/queue-bullmq';
import type { BacktestDetail, RouteInput, StrategyDetail } from '@stratbox/client';

export const modules = { contract, core, coreContract, storeKysely, adapterExpress, adapterWs, client, queueBullmq };

// The contract is one and the same whichever package it comes through.
export const sameRoutes: typeof contract.routes = core.routes;

// The client's query types are the contract's input types: numbers are numbers.
export const query: NonNullable<RouteInput<'strategies.list'>['query']> = { limit: 10 };
// @ts-expect-error limit is a number, not a string
export const badQuery: NonNullable<RouteInput<'strategies.list'>['query']> = { limit: 'ten' };

export type Records = [BacktestDetail, StrategyDetail];
