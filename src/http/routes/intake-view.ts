// The import record behind a queue job, for operators: GET /admin/accounts/{account}/imports/{id}
// ?mode=live|test, behind the same credentials as the dashboard (Bearer, or Basic for the browser
// that follows a job's link). Scoped like every read: account and mode come from the job's data.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '../schemas/typebox.ts';
import type { HttpDeps } from '../http-deps.ts';
import { presentImport } from '../resources/imports/presenter.ts';
import { baseUrl } from '../request-context.ts';
import { HAL } from '../schemas/common.ts';
import { operatorGuard } from '../plugins/admin-auth.ts';

/** Where the dashboard links a job: from its data (references only: intake id, account, mode). */
export function intakeRecordLink(data: Record<string, unknown>): { href: string; displayText: string } | undefined {
  const { intakeId, accountId, mode } = data;
  if (typeof intakeId !== 'string' || typeof accountId !== 'string' || (mode !== 'live' && mode !== 'test')) return undefined;
  return {
    href: `/admin/accounts/${encodeURIComponent(accountId)}/imports/${encodeURIComponent(intakeId)}?mode=${mode}`,
    displayText: `import record ${intakeId}`,
  };
}

export const intakeView =
  (c: HttpDeps, adminToken: string): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.addHook('onRequest', operatorGuard(adminToken));
    app.get(
      '/admin/accounts/:account_id/imports/:import_id',
      {
        schema: {
          hide: true,
          params: Type.Object({ account_id: Type.String({ maxLength: 36 }), import_id: Type.String({ maxLength: 36 }) }),
          querystring: Type.Object({ mode: Type.Union([Type.Literal('live'), Type.Literal('test')]) }),
        },
      },
      async (req, reply) => {
        const scope = { accountId: req.params.account_id, mode: req.query.mode };
        const record = await c.intake.get(scope, req.params.import_id);
        return reply.type(HAL).send({ account: scope.accountId, mode: scope.mode, ...presentImport(baseUrl(req, c.config.publicUrl), record) });
      },
    );
  };
