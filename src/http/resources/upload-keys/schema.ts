// The upload key resource's schemas: what its routes take and answer, in the OpenAPI document too.
import { Id, Nullable } from '../../schemas/common.ts';
import { KEY_CHANNELS } from '../../../domain/channels.ts';
import { Type } from '../../schemas/typebox.ts';

const Time = Type.String({ format: 'date-time' });

const fields = {
  resource: Type.Literal('upload-key'),
  id: Type.String(),
  mode: Type.String({ enum: ['live', 'test'] }),
  name: Type.String(),
  hint: Type.String({ description: 'The prefix and the first and last 4 characters: enough to tell keys apart, never the key' }),
  networks: Type.Array(Type.String(), { description: 'CIDR blocks the key may be used from; empty: anywhere' }),
  createdAt: Time,
  lastUsed: Nullable(
    Type.Object(
      { at: Time, address: Nullable(Type.String()), channel: Nullable(Type.String({ enum: [...KEY_CHANNELS] })) },
      { description: 'When, from which address and over which channel it was last used (written at most once a minute per address and channel)' },
    ),
  ),
};

export const UploadKey = Type.Object(fields, { $id: 'UploadKey' });

export const CreatedUploadKey = Type.Object({
  ...fields,
  key: Type.String({ description: 'The key itself (live_up_... or test_up_...): shown in this answer only, stored hashed' }),
});

export const SshKeyOfUploadKey = Type.Object(
  {
    resource: Type.Literal('ssh-key'),
    id: Type.String(),
    mode: Type.String({ enum: ['live', 'test'] }),
    type: Type.String(),
    fingerprint: Type.String({ description: 'SHA256:... as ssh-keygen -l shows it' }),
    comment: Type.String(),
    uploadKey: Type.String({ description: 'The upload key it belongs to' }),
    createdAt: Time,
  },
  { $id: 'UploadKeySshKey' },
);

export const KeyId = Type.Object({ key_id: Id('Upload key id (upk_...)') });
