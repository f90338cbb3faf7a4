// Every setting of the service, grouped per feature: one TypeBox object per group (settings/), each
// setting a string schema with its kind, default and doc string (setting-types.ts). To add a setting,
// add it to its group's file (or a new group here); `npm run docs:config` then rewrites
// docs/configuration.md and config/example.env from this schema.
import type { StaticDecode, TObject } from 'typebox';
import { Type } from './typebox.ts';
import { decoderOf, type SettingMeta } from './setting-types.ts';
import { dashboard } from './settings/dashboard.ts';
import { database } from './settings/database.ts';
import { ftp } from './settings/ftp.ts';
import { general } from './settings/general.ts';
import { http } from './settings/http.ts';
import { imap } from './settings/imap.ts';
import { intake } from './settings/intake.ts';
import { mail } from './settings/mail.ts';
import { ops } from './settings/ops.ts';
import { redis } from './settings/redis.ts';
import { retention } from './settings/retention.ts';
import { sftp } from './settings/sftp.ts';
import { smtp } from './settings/smtp.ts';
import { store } from './settings/store.ts';
import { transfer } from './settings/transfer.ts';
import { webhooks } from './settings/webhooks.ts';

const groups = { general, http, database, redis, intake, store, retention, transfer, ftp, sftp, imap, mail, smtp, webhooks, dashboard, ops };

export const configSchema = Type.Object(groups);

type Groups = typeof groups;
type UnionToIntersection<U> = (U extends unknown ? (u: U) => void : never) extends (i: infer I) => void ? I : never;
/** The settings as one flat object (the shape the code reads today; keys are unique across groups). */
export type FlatSettings = UnionToIntersection<{ [G in keyof Groups]: StaticDecode<Groups[G]> }[keyof Groups]>;

/** One setting as the schema declares it: its group, its key in the flat view, its annotations. */
export interface SettingEntry {
  group: string;
  title: string;
  description?: string;
  key: string;
  meta: SettingMeta;
  form: string;
  /** its kind's decode of the checked text */
  decode: (raw: string) => unknown;
}

/** Every setting in schema order. */
export const settingEntries: SettingEntry[] = Object.entries(groups as unknown as Record<string, TObject & { title?: string; description?: string }>).flatMap(
  ([group, object]) =>
    Object.entries(object.properties).map(([key, schema]) => ({
      group,
      title: String(object.title),
      description: object.description,
      key,
      meta: (schema as unknown as { 'x-setting': SettingMeta })['x-setting'],
      form: String((schema as unknown as { 'x-form': string })['x-form']),
      decode: decoderOf((schema as unknown as { 'x-setting': SettingMeta })['x-setting']),
    })),
);
