import type { Insertable, Selectable } from 'kysely';
import type { CredentialRecord, CredentialRepository } from '@stratbox/core';
import type { CredentialsTable } from '../schema.js';
import type { QueryContext } from './query-context.js';

/** The bytes of `data` as a Buffer over the same memory (no copy), which both drivers bind as a BLOB / bytea. */
const asBuffer = (data: Uint8Array) => Buffer.from(data.buffer, data.byteOffset, data.byteLength);

function toRow(c: CredentialRecord): Insertable<CredentialsTable> {
  return {
    id: c.id,
    user_id: c.userId,
    exchange: c.exchange,
    label: c.label,
    testnet: c.testnet ? 1 : 0,
    key_hint: c.keyHint,
    secrets: asBuffer(c.secrets),
    created_at: c.createdAt,
  };
}

function toCredential(row: Selectable<CredentialsTable>): CredentialRecord {
  return {
    id: row.id,
    userId: row.user_id,
    exchange: row.exchange,
    label: row.label,
    testnet: Number(row.testnet) === 1,
    keyHint: row.key_hint,
    // A plain Uint8Array of exactly the stored bytes (the drivers give a Buffer, maybe pooled).
    secrets: new Uint8Array(row.secrets),
    createdAt: row.created_at,
  };
}

/** Exchange credentials; the sealed secrets are a BLOB / bytea, stored and returned byte for byte. */
export function createCredentialRepository({ db, dialect }: QueryContext): CredentialRepository {
  return {
    async insert(credential) {
      await db.insertInto('credentials').values(toRow(credential)).execute();
    },

    async findById(userId, id, options) {
      let query = db.selectFrom('credentials').selectAll().where('id', '=', id).where('user_id', '=', userId);
      // SQLite has no row locks; its transactions are serialized whole (see the SQLite dialect).
      if (options?.forUpdate && dialect === 'postgres') query = query.forUpdate();
      const row = await query.executeTakeFirst();
      return row ? toCredential(row) : null;
    },

    async list(userId, { limit, after }) {
      let query = db.selectFrom('credentials').selectAll().where('user_id', '=', userId);
      if (after) query = query.where((eb) => eb(eb.refTuple('created_at', 'id'), '<', eb.tuple(after.createdAt, after.id)));
      const rows = await query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
      return rows.map(toCredential);
    },

    async delete(userId, id) {
      const result = await db.deleteFrom('credentials').where('id', '=', id).where('user_id', '=', userId).executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },
  };
}
