// The store-s3 project's S3 server (vitest.config.ts): one s3rver process for the run, its address
// and credentials in the environment the test workers inherit; each test store has a prefix of its own.
import { S3RVER_CREDENTIALS, startS3Server } from '../../testkit/s3-server.ts';

export default async function setup(): Promise<() => Promise<void>> {
  const s3 = await startS3Server();
  Object.assign(process.env, S3RVER_CREDENTIALS, { TEST_S3_ENDPOINT: s3.endpoint, TEST_S3_BUCKET: s3.bucket });
  return () => s3.destroy();
}
