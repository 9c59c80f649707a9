import { beforeEach, describe, expect, it } from 'vitest';
import type { FundingChunkRecord, Store } from '../ports/store.js';
import { uid } from './contract-fixtures.js';

/*
 * The Store contract of the funding-rate cache (`fundingRates`), run by `describeStoreContract`
 * with its shared store. Funding rates are market data, not scoped to users: every test uses a
 * (source, symbol) of its own.
 */

export type FundingRatesContext = () => { store: Store };

/** UTC day `n` days after 2025-01-01, as `YYYY-MM-DD`. */
const dayOf = (n: number) => new Date(Date.UTC(2025, 0, 1) + n * 86_400_000).toISOString().slice(0, 10);

/** `values` as consecutive little-endian float64s. */
function packFloat64(values: readonly number[]): Uint8Array {
  const bytes = new Uint8Array(values.length * 8);
  const view = new DataView(bytes.buffer);
  values.forEach((v, i) => view.setFloat64(i * 8, v, true));
  return bytes;
}

function unpackFloat64(bytes: Uint8Array): number[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return Array.from({ length: bytes.byteLength / 8 }, (_, i) => view.getFloat64(i * 8, true));
}

/** A chunk of `count` events of `day`, 8 hours apart, packed as the port says; `seed` varies the rates. */
function fundingChunk(key: { source: string; symbol: string }, day: string, count: number, seed = 1): FundingChunkRecord {
  const start = Date.parse(`${day}T00:00:00.000Z`);
  const values: number[] = [];
  for (let i = 0; i < count; i++) values.push(start + i * 8 * 3_600_000, (seed - i) * 0.000_012_345_678_9);
  return { ...key, day, count, data: packFloat64(values) };
}

const hex = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
const comparable = (c: FundingChunkRecord) => ({ ...c, data: hex(c.data) });

export function describeFundingRatesContract(context: FundingRatesContext): void {
  describe('fundingRates', () => {
    let key: { source: string; symbol: string };
    beforeEach(() => {
      key = { source: uid('src'), symbol: `${uid('SYM')}/USDT:USDT` };
    });
    const store = () => context().store;

    it('returns exactly the bytes stored, as a Uint8Array, from a view into a larger buffer', async () => {
      const tricky = [Date.UTC(2025, 0, 1), -0.000_75, Date.UTC(2025, 0, 1, 8), 0.1 + 0.2, Date.UTC(2025, 0, 1, 16), -Number.MIN_VALUE];
      const packed = packFloat64(tricky);
      const backing = new Uint8Array(packed.byteLength + 24).fill(0xab);
      backing.set(packed, 5);
      const data = backing.subarray(5, 5 + packed.byteLength);
      await store().fundingRates.putChunks([{ ...key, day: dayOf(0), count: 3, data }]);
      const [found, ...rest] = await store().fundingRates.getChunks(key.source, key.symbol, dayOf(0), dayOf(0));
      expect(rest).toEqual([]);
      expect(found!.data).toBeInstanceOf(Uint8Array);
      expect(hex(found!.data)).toBe(hex(packed));
      expect(unpackFloat64(found!.data).every((v, i) => Object.is(v, tricky[i]))).toBe(true);
      expect({ ...found!, data: null }).toEqual({ ...key, day: dayOf(0), count: 3, data: null });
    });

    it('replaces a chunk stored under the same (source, symbol, day), and no other; the last of a key given twice wins', async () => {
      const first = fundingChunk(key, dayOf(1), 3, 1);
      const neighbours = [
        fundingChunk(key, dayOf(2), 3, 2),
        fundingChunk({ ...key, source: uid('src') }, dayOf(1), 3, 3),
        fundingChunk({ ...key, symbol: `${key.symbol}2` }, dayOf(1), 3, 4),
      ];
      await store().fundingRates.putChunks([first, ...neighbours]);
      const second = fundingChunk(key, dayOf(1), 1, 9);
      await store().fundingRates.putChunks([fundingChunk(key, dayOf(1), 2, 8), second]);
      expect((await store().fundingRates.getChunks(key.source, key.symbol, dayOf(0), dayOf(9))).map(comparable)).toEqual([
        comparable(second),
        comparable(neighbours[0]!),
      ]);
      for (const n of neighbours.slice(1)) {
        expect((await store().fundingRates.getChunks(n.source, n.symbol, n.day, n.day)).map(comparable)).toEqual([comparable(n)]);
      }
    });

    it('returns the chunks whose day is within [fromDay, toDay], in day order, hundreds in one call', async () => {
      await store().fundingRates.putChunks([]);
      const chunks = Array.from({ length: 400 }, (_, d) => fundingChunk(key, dayOf(d), d % 4, d));
      await store().fundingRates.putChunks([...chunks].reverse());
      const get = async (from: number, to: number) => (await store().fundingRates.getChunks(key.source, key.symbol, dayOf(from), dayOf(to))).map(comparable);
      expect(await get(0, 399)).toEqual(chunks.map(comparable));
      expect(await get(30, 33)).toEqual(chunks.slice(30, 34).map(comparable));
      expect(await get(9, 3)).toEqual([]);
      expect(await get(500, 600)).toEqual([]);
      expect(await store().fundingRates.getChunks(key.source, `${key.symbol}?`, dayOf(0), dayOf(399))).toEqual([]);
    });

    it('is not changed by mutating the stored or returned bytes', async () => {
      const chunk = fundingChunk(key, dayOf(0), 3, 1);
      const expected = comparable(chunk);
      await store().fundingRates.putChunks([chunk]);
      chunk.data.fill(0);
      const [found] = await store().fundingRates.getChunks(key.source, key.symbol, dayOf(0), dayOf(0));
      expect(comparable(found!)).toEqual(expected);
      found!.data.fill(1);
      expect((await store().fundingRates.getChunks(key.source, key.symbol, dayOf(0), dayOf(0))).map(comparable)).toEqual([expected]);
    });

    it('countChunks counts the days within [fromDay, toDay] and their events; a day written empty is a day', async () => {
      expect(await store().fundingRates.countChunks(key.source, key.symbol, dayOf(0), dayOf(400))).toEqual({ days: 0, rates: 0 });
      const days = [0, 1, 2, 5, 31];
      await store().fundingRates.putChunks(days.map((d) => fundingChunk(key, dayOf(d), d === 2 ? 0 : 3, d)));
      await store().fundingRates.putChunks(days.map((d) => fundingChunk({ ...key, source: `${key.source}x` }, dayOf(d), 1, d)));
      const count = (from: number, to: number) => store().fundingRates.countChunks(key.source, key.symbol, dayOf(from), dayOf(to));
      expect(await count(0, 400)).toEqual({ days: 5, rates: 12 });
      expect(await count(1, 5)).toEqual({ days: 3, rates: 6 });
      expect(await count(2, 2)).toEqual({ days: 1, rates: 0 });
      expect(await count(3, 4)).toEqual({ days: 0, rates: 0 });
      await store().fundingRates.putChunks([fundingChunk(key, dayOf(5), 1, 9)]);
      expect(await count(5, 5)).toEqual({ days: 1, rates: 1 });
    });

    it('listSources lists each source holding any chunk of the symbol, once, in name order', async () => {
      expect(await store().fundingRates.listSources(key.symbol)).toEqual([]);
      for (const source of ['synthetic', 'csv', 'ccxt:binance']) {
        await store().fundingRates.putChunks([0, 1, 2].map((d) => fundingChunk({ ...key, source }, dayOf(d), 1)));
      }
      await store().fundingRates.putChunks([fundingChunk({ source: 'other-symbol', symbol: `${key.symbol}2` }, dayOf(0), 1)]);
      expect(await store().fundingRates.listSources(key.symbol)).toEqual(['ccxt:binance', 'csv', 'synthetic']);
      expect(await store().fundingRates.listSources(`${key.symbol}2`)).toEqual(['other-symbol']);
    });

    it('writes chunks inside a transaction only when it commits', async () => {
      const kept = fundingChunk(key, dayOf(0), 3, 1);
      await store().transaction(async (tx) => {
        await tx.fundingRates.putChunks([kept]);
        expect((await tx.fundingRates.getChunks(key.source, key.symbol, dayOf(0), dayOf(0))).map(comparable)).toEqual([comparable(kept)]);
      });
      await expect(
        store().transaction(async (tx) => {
          await tx.fundingRates.putChunks([fundingChunk(key, dayOf(0), 1, 7), fundingChunk(key, dayOf(1), 2, 7)]);
          throw new Error('rolled back');
        }),
      ).rejects.toThrow('rolled back');
      expect((await store().fundingRates.getChunks(key.source, key.symbol, dayOf(0), dayOf(1))).map(comparable)).toEqual([comparable(kept)]);
    });
  });
}
