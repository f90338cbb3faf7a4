// Who may do what in the dashboard: the one table of actions that not every person may take
// (docs/dashboard.md, "Roles"). A route names its action (`allowed('rotateKeys')`), a template
// asks `it.may.rotateKeys`; a new owner-only action is one line in ACTIONS.
import type { FastifyRequest } from 'fastify';
import { ApiError } from '../api-error.ts';
import { requireSession, type Signed } from './session.ts';

type Role = 'owner' | 'member';

const ACTIONS = {
  /** rotate the live or test API key (the new key is shown in full once) */
  rotateKeys: ['owner'],
  /** make and revoke upload keys (the new key is shown in full once) */
  manageUploadKeys: ['owner'],
  /** see the account's people, invite, remove */
  managePeople: ['owner'],
  /** read the account's trail (who changed what), and download it */
  seeTrail: ['owner'],
} as const satisfies Record<string, readonly Role[]>;

export type Action = keyof typeof ACTIONS;

/** A form or page a role may not use: the 403 page ("only the account's owners can do that"). */
export class NotYourRole extends ApiError {
  constructor(action: Action) {
    super(403, `Your role may not ${action}`);
  }
}

const roleOf = (signed: Signed): Role => (signed.owner ? 'owner' : 'member');

function may(signed: Signed | null, action: Action): boolean {
  return signed !== null && (ACTIONS[action] as readonly Role[]).includes(roleOf(signed));
}

/** Every action and whether the signed-in person may take it (the templates' `it.may`). */
export function permissions(signed: Signed | null): Record<Action, boolean> {
  return Object.fromEntries(Object.keys(ACTIONS).map((a) => [a, may(signed, a as Action)])) as Record<Action, boolean>;
}

/** Route options of a page or form behind sign-in that only some roles may use. */
export const allowed = (action: Action) => ({
  preHandler: [
    requireSession,
    async (req: FastifyRequest) => {
      if (!may(req.signed, action)) throw new NotYourRole(action);
    },
  ],
});
