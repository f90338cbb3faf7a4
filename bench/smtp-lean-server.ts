// The lean reference bench:smtp measures the SMTP receiver against, in a process of its own: an
// smtp-server that commits each raw message to PostgreSQL before its 250, and nothing else (no
// recipient check, no sender checks, no job, no pipeline). Env: DATABASE_URL, PORT; prints
// "listening" once it does.
import pg from 'pg';
import { SMTPServer } from 'smtp-server';

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 16 });
await pool.query(
  'create table if not exists lean_smtp (id bigserial primary key, mail_from text, rcpt_to text[], raw bytea, received_at timestamptz not null default now())',
);
const server = new SMTPServer({
  authOptional: true,
  disabledCommands: ['AUTH', 'STARTTLS'],
  disableReverseLookup: true,
  logger: false,
  size: 64 * 1024 * 1024,
  onData(stream, session, callback) {
    const chunks: Buffer[] = [];
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.on('end', () => {
      const from = session.envelope.mailFrom ? session.envelope.mailFrom.address : '';
      pool
        .query('insert into lean_smtp (mail_from, rcpt_to, raw) values ($1, $2, $3)', [
          from,
          session.envelope.rcptTo.map((r) => r.address),
          Buffer.concat(chunks),
        ])
        .then(() => callback(), callback);
    });
  },
});
server.listen(Number(process.env.PORT), '127.0.0.1', () => console.log('listening'));
process.on('SIGTERM', () => server.close(() => void pool.end().then(() => process.exit(0))));
