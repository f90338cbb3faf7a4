// What the mail channel counts for operators, on the registry it is given (the container's, which
// GET /metrics serves): automatic mail set aside by category, and reply limits reached. A second
// mail role on the same registry (tests, benchmarks) shares the series.
import { Counter, type Registry } from 'prom-client';

function counter(registry: Registry, name: string, help: string, labelNames: string[] = []): Counter<string> {
  return (registry.getSingleMetric(name) as Counter<string> | undefined) ?? new Counter({ name, help, labelNames, registers: [registry] });
}

export class MailMetrics {
  private readonly automatic: Counter<string>;
  private readonly limits: Counter<string>;
  private readonly suppressed: Counter<string>;

  constructor(registry: Registry) {
    this.automatic = counter(registry, 'mail_automatic_messages_total', 'Automatic mail without files set aside (not imported, not failed), by category', [
      'category',
    ]);
    this.limits = counter(
      registry,
      'mail_reply_limit_reached_total',
      'Times a sender reached MAIL_REPLY_LIMIT_PER_HOUR (once per sender until a reply goes to it again)',
    );
    this.suppressed = counter(registry, 'mail_replies_suppressed_total', 'Replies owed but not sent because the sender reached the hourly limit');
  }

  automaticMessage(category: string): void {
    this.automatic.inc({ category });
  }

  replySuppressed(firstForSender: boolean): void {
    this.suppressed.inc();
    if (firstForSender) this.limits.inc();
  }
}
