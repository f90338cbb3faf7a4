// The intake channels, listed once: the record's type, the API's enum, the dashboard's order and
// labels (its i18n files name each), and the database's CHECK on intake_staging.channel all
// follow this list; test/unit/channel-list.test.ts names every place that does not. How to add
// a channel: docs/architecture.md.

/** Every channel a file can come in by, in the order the dashboard shows them. */
export const INTAKE_CHANNELS = ['ftp', 'sftp', 'mail', 'http'] as const;
export type IntakeChannel = (typeof INTAKE_CHANNELS)[number];

/** The file-transfer channels (channels/transfer): logins by user name and key, senders `user@address`. */
export const TRANSFER_CHANNELS = ['ftp', 'sftp'] as const satisfies readonly IntakeChannel[];
export type TransferChannel = (typeof TRANSFER_CHANNELS)[number];

/** The channels an API key or upload key is used over (the key's last use names one). */
export const KEY_CHANNELS = ['http', ...TRANSFER_CHANNELS] as const satisfies readonly IntakeChannel[];
export type KeyChannel = (typeof KEY_CHANNELS)[number];

export const isTransferChannel = (channel: string): channel is TransferChannel => (TRANSFER_CHANNELS as readonly string[]).includes(channel);
