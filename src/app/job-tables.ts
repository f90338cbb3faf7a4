// Every queue's table, handed to the queue module at start (app/container.ts): a queue whose
// table is not listed here has no producer and no worker. How to add a job: docs/architecture.md.
import { mailQueue } from '../channels/mail/smtp-queue.ts';
import { intakeQueue } from '../intake/intake-queue.ts';
import { webhookQueue } from '../webhooks/webhook-queue.ts';
import { periodicQueue } from './periodic-work.ts';

export const QUEUE_TABLES = [intakeQueue, webhookQueue, mailQueue, periodicQueue];
