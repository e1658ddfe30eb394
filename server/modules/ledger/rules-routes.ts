import { Hono } from 'hono'
import { ProgrammeRulesInputSchema, ProgrammeRulesSchema } from '#domain/ledger.ts'
import { requireAuth } from '#server/auth/jwt.ts'
import { anyStaffMember, requirePermission } from '#server/auth/permissions.ts'
import type { AppEnv, ServerContext } from '#server/context.ts'
import { jsonBody } from '#server/http/validate.ts'
import { operation } from '#server/openapi/operation.ts'
import { readProgrammeRules } from './queries.ts'
import { changeProgrammeRules } from './rules-service.ts'

/**
 * `GET /practice/rules` (any member of the practice: what a point is worth shows on every
 * profile) and `PUT /practice/rules` (Admin: `practice.settings`). A change applies from then on:
 * points already posted keep the expiry they were posted with, and the joining bonus goes to
 * patients added afterwards. Each change is an audit event with the values before and after
 * (rules are the practice's settings, not personal data).
 */
export function programmeRuleRoutes(ctx: ServerContext) {
  return new Hono<AppEnv>()
    .use(requireAuth(ctx))
    .get(
      '/',
      operation({
        summary: 'Read the programme rules',
        description:
          "The practice's programme rules: what a point is worth (cents), points per dollar for items without their own points, the joining bonus, the months until earned points lapse (0 = never), the redemption size above which the patient's code is needed (0 = always) and the most points one line of a visit earns without a manager's approval.",
        tag: 'Settings',
        responses: { 200: { description: 'The rules as they stand.', json: ProgrammeRulesSchema } },
      }),
      anyStaffMember(),
      async (c) => {
        return c.json(await readProgrammeRules(ctx.db, c.var.user.practice_id))
      },
    )
    .put(
      '/',
      operation({
        summary: 'Change the programme rules',
        description:
          'Replaces the rules (`referral_bonus` may be left out: it then stays as it is). A change applies from then on: points already posted keep the expiry they were posted with, the joining bonus goes to patients added afterwards, and the referral bonus to a referrer when a patient they referred has a first bill that earns afterwards. Each change is an audit event with the values before and after.',
        tag: 'Settings',
        responses: { 200: { description: 'The rules as saved.', json: ProgrammeRulesSchema } },
      }),
      requirePermission(ctx, 'practice.settings'),
      jsonBody(ProgrammeRulesInputSchema),
      async (c) => {
        const user = c.var.user
        const after = await changeProgrammeRules(ctx, {
          practiceId: user.practice_id,
          userId: user.id,
          ip: ctx.clientIp(c),
          rules: c.req.valid('json'),
        })
        return c.json(after)
      },
    )
}
