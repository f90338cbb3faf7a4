// The account resource's schemas: what its routes take and answer, in the OpenAPI document too.
import { MAX_SENDERS, SENDER_POLICIES } from '../../../domain/sender-policy.ts';
import { Nullable } from '../../schemas/common.ts';
import { Type } from '../../schemas/typebox.ts';

export const AccountSchema = Type.Object(
  {
    resource: Type.Literal('account'),
    id: Type.String(),
    name: Type.String(),
    mode: Type.String({ enum: ['live', 'test'] }),
    importAddress: Type.String({ description: "This mode's personal import e-mail address" }),
    ftp: Type.Object({
      host: Type.String(),
      port: Type.Integer(),
      username: Type.String(),
      password: Type.String({ description: 'What to use as password (a description: the key of this mode, never the key itself)' }),
      tls: Type.String({ enum: ['required', 'optional', 'off'], description: 'Explicit FTPS (AUTH TLS) on the FTP port' }),
      implicitFtpsPort: Nullable(Type.Integer({ description: 'Implicit FTPS (TLS from the first byte), when offered' })),
      certificateSha256: Nullable(Type.String({ description: 'SHA-256 fingerprint of the FTPS certificate, AA:BB:...' })),
    }),
    sftp: Type.Object({
      host: Type.String(),
      port: Type.Integer(),
      username: Type.String({ description: 'The same user as FTP' }),
      password: Type.String({ description: 'What to use as password (the key of this mode), or a registered SSH key' }),
      hostKeys: Type.Array(Type.Object({ type: Type.String(), fingerprint: Type.String({ description: 'SHA256:... as OpenSSH shows it' }) })),
    }),
  },
  { $id: 'Account' },
);

export const SendersSchema = Type.Object(
  {
    resource: Type.Literal('senders'),
    policy: Type.String({ enum: [...SENDER_POLICIES] }),
    senders: Type.Array(Type.String(), { description: 'Addresses (a@b.example) and domains (@b.example), lower-cased and sorted' }),
  },
  { $id: 'Senders' },
);

export const SendersBody = Type.Object({
  policy: Type.String({ enum: [...SENDER_POLICIES], description: 'anyone or listed' }),
  senders: Type.Optional(
    Type.Array(Type.String({ maxLength: 254 }), { maxItems: MAX_SENDERS, description: 'Addresses (a@b.example) and domains (@b.example); replaces the list' }),
  ),
});
