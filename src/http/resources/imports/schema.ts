// The import resource's schemas: what its routes take and answer, in the OpenAPI document too.
import { INTAKE_CHANNELS } from '../../../domain/channels.ts';
import { INTAKE_REASONS } from '../../../domain/intake-reason-catalogue.ts';
import { INTAKE_STATUSES, MATCHED_BY } from '../../../domain/intake.ts';
import { Id, Link, Nullable } from '../../schemas/common.ts';
import { MAX_CONTENT_CHARS } from '../documents/schema.ts';
import { Type } from '../../schemas/typebox.ts';

const Time = Type.String({ format: 'date-time' });

export const ImportSchema = Type.Object(
  {
    resource: Type.Literal('import'),
    id: Type.String(),
    channel: Type.String({ enum: [...INTAKE_CHANNELS] }),
    sender: Type.String({ description: 'FTP user@address, e-mail From address, or api:<account> for POST /v2/imports' }),
    filename: Type.String({ description: 'The name as received' }),
    size: Type.Integer(),
    sha256: Type.String(),
    status: Type.String({
      enum: [...INTAKE_STATUSES],
      description:
        'waiting: no invoice with that id or number yet; the file is retried until the match window ends. unpacked: a ZIP archive whose files became imports of their own (their archive field names it). held: from an e-mail sender the account does not allow (GET /v2/account/senders), until released (POST /v2/imports/{id}/release) or discarded',
    }),
    invoice: Nullable(Type.String({ description: 'The invoice it was matched to' })),
    document: Nullable(Type.String({ description: 'The document it became' })),
    reason: Nullable(Type.String({ description: 'Why it failed, or what it waits for, in words for people (English)' })),
    reasonCode: Nullable(
      Type.String({
        enum: Object.keys(INTAKE_REASONS),
        description:
          'The reason as a code, for programs and translations (docs/api.md, "Reason codes"); null when the reason has no code (records from before codes, rare combinations)',
      }),
    ),
    reasonParams: Nullable(
      Type.Record(Type.String(), Type.Unknown(), {
        description:
          'The values the reason text names, by the placeholder names of its code (dates as ISO timestamps, amounts as {cents, currency}, alternatives as arrays); notes: further coded reasons that follow the text',
      }),
    ),
    archive: Nullable(Type.String({ description: 'The import of the ZIP archive this file was unpacked from' })),
    receivedAt: Time,
    updatedAt: Time,
    attachedAt: Nullable(Time),
    matchedBy: Nullable(
      Type.String({
        enum: [...MATCHED_BY],
        description:
          "The strongest evidence that found the attached file's invoice (docs/matching.md): its name is the invoice id or number, its e-invoice (inside the PDF, or the XML itself), a number inside its name, the e-mail subject, the number and total in the PDF's text, or assigned by a person",
      }),
    ),
    uploadKey: Nullable(Type.String({ description: 'The upload key (upk_...) the file came with; null for the API key, SSH keys and mail' })),
    senderCheck: Nullable(
      Type.String({
        description:
          'E-mail only: who sent the message, as far as anyone checked, in words (English): "Sender authenticated (From a@b.example): DMARC pass, SPF pass (b.example), DKIM pass (b.example); checked on receipt". Null for the other channels (docs/mail.md, "Who sent it")',
      }),
    ),
    _links: Type.Object({ self: Link, invoice: Type.Optional(Link), document: Type.Optional(Link), archive: Type.Optional(Link) }),
  },
  { $id: 'Import' },
);

export const CreateBody = Type.Object({
  filename: Type.String({
    minLength: 1,
    maxLength: 250,
    description:
      '<invoice_id>.pdf or <invoice_number>.pdf; otherwise the e-invoice inside the PDF or an invoice number inside the name, ranked, conflicts refused (docs/matching.md); a .pdf.p7m signature container is unwrapped; a name ending in .zip is a ZIP archive whose PDFs each become an import',
  }),
  // no maxLength: contentBytes checks the length, because ajv's maxLength counts code points one
  // by one, which costs about a millisecond on a 100 KB file's Base64
  content: Type.String({ description: `The PDF (or ZIP archive) in Base64, at most ${MAX_CONTENT_CHARS} characters` }),
});

/** The raw form's media types: the file itself is the body, its name in X-Filename (docs/api.md, "Imports"). */
export const RAW_TYPES = ['application/pdf', 'application/zip', 'application/x-zip-compressed', 'application/octet-stream'];

const RawFile = {
  type: 'string',
  format: 'binary',
  description:
    'The file itself (a PDF, or a ZIP archive up to ZIP_MAX_TOTAL_BYTES), its name in the X-Filename header; streamed to the intake as it arrives. Which it is follows the name, as on FTP: a name ending in .zip is an archive',
};

/** Both request bodies: JSON (or form fields) with the file in Base64, or the file itself. */
export const CreateBodies = {
  content: {
    'application/json': { schema: CreateBody },
    'application/x-www-form-urlencoded': { schema: CreateBody },
    ...Object.fromEntries(RAW_TYPES.map((type) => [type, { schema: RawFile }])),
  },
};

export const CreateHeaders = Type.Object({
  'x-filename': Type.Optional(
    Type.String({
      description:
        'The raw form only (and required there): the file name, percent-encoded UTF-8 as encodeURIComponent writes it; the same rules as the filename field',
    }),
  ),
});

export const Params = Type.Object({ import_id: Id('Import id (imp_...)') });
