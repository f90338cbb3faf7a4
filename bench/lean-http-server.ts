// The reference of bench:intake: a bare Fastify handler that takes the same JSON body as
// POST /v2/imports ({ Filename, Content: Base64 }), stages the bytes and enqueues them as the lean
// intake does (lean-intake.ts: one INSERT, one BullMQ job, before the 202), with the same lean
// worker in this process. No auth, no schema, no names. Prints its port once listening.
//
//   node --import tsx bench/lean-http-server.ts <databaseUrl> <redisUrl> <prefix>
import Fastify from 'fastify';
import { startLeanIntake } from './lean-intake.ts';

const [databaseUrl, redisUrl, prefix] = process.argv.slice(2);
const intake = await startLeanIntake({ databaseUrl, redisUrl, prefix });
const app = Fastify({ logger: false, bodyLimit: 64 * 1024 * 1024 });

app.post<{ Body: { Filename: string; Content: string } }>('/imports', async (req, reply) => {
  await intake.stage(req.body.Filename, Buffer.from(req.body.Content, 'base64'));
  return reply.code(202).send({ status: 'received' });
});

const address = await app.listen({ port: 0, host: '127.0.0.1' });
console.log(new URL(address).port);
for (const sig of ['SIGTERM', 'SIGINT'] as const)
  process.on(
    sig,
    () =>
      void app
        .close()
        .then(() => intake.close())
        .finally(() => process.exit(0)),
  );
