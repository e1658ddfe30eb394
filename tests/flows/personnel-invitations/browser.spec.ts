/**
 * The Personnel area's Playwright driver: its QA paths (docs/paths/personnel-invitations.md),
 * replayed in Chromium against the real server as the demo Admin. Every path invites a person of
 * its own (through the API) for Resend and Revoke to act on, and invites with e-mails of its own.
 */
import { apiSignIn, expect, storeSession } from '#tests/e2e/support/fixtures.ts'
import type { QaStep } from '#tests/mbt/index.ts'
import { invite, phoneFor } from '#tests/paths/support/api.ts'
import {
  apiError,
  atStep,
  letAnswerThrough,
  type ReplayContext,
  type Replayer,
  replayFlow,
} from '#tests/paths/support/replay.ts'
import {
  invitationFixtures as fixtures,
  personnelInvitationsFlow,
  personnelInvitationsModel,
} from './model.ts'

type Context = ReplayContext & {
  /** The path's own pending invitation (the model's row). */
  row: { id: string; email: string }
  /** The e-mail the last Invite was for (the model's new person). */
  invited: string
}

/** An e-mail of this path's own: `<name>.<unique digits>.<n>@example.com`. */
function emailFor(context: Context, name: string, n: number): string {
  return `${name}.${phoneFor('556', 300 + context.path.number)}.${n}@example.com`
}

const button = (context: Context, name: string) =>
  context.page.getByRole('button', { name, exact: true })
const resend = (context: Context) => button(context, `Resend invitation to ${context.row.email}`)
const revoke = (context: Context) => button(context, `Revoke invitation to ${context.row.email}`)

/** The model's message with the path's e-mails in place of the fixtures'. */
function shown(context: Context, message: string): string {
  return message
    .replace(fixtures.row.email, context.row.email)
    .replace(fixtures.input.email, context.invited)
}

const replayer: Replayer<Context> = {
  async open(context) {
    const { page, request } = context
    const session = await apiSignIn(request)
    context.row.email = emailFor(context, 'jordan.lee', 0)
    const link = await invite(request, {
      email: context.row.email,
      first: 'Jordan',
      last: 'Lee',
      title: 'Dr.',
      position: 'Provider',
    })
    context.row.id = link.split('/').pop() ?? ''
    await storeSession(page, session)
    await page.goto('/personnel')
  },

  async perform(context, i) {
    const { page, path, gate, request } = context
    const { event } = path.steps[i] as QaStep
    switch (event.type) {
      case 'invite.submit': {
        const refused = path.steps[i + 1]?.event.type === 'xstate.error.actor.invitePersonnel'
        // Refused: the e-mail of a pending invitation; else a new person for every Invite.
        context.invited = refused ? context.row.email : emailFor(context, 'new.person', i)
        await page.getByRole('textbox', { name: /^Email/ }).fill(context.invited)
        await page.getByRole('textbox', { name: /^First name/ }).fill(fixtures.input.first_name)
        await page.getByRole('textbox', { name: /^Last name/ }).fill(fixtures.input.last_name)
        await page.getByRole('combobox', { name: /^Position/ }).click()
        await page.getByRole('option', { name: fixtures.input.position, exact: true }).click()
        await button(context, 'Invite').click()
        return
      }
      case 'invitation.resend':
        await resend(context).click()
        return
      case 'invitation.revoke':
        // Revoking asks first: the event is the confirmation in the dialog.
        await revoke(context).click()
        await context.page
          .getByRole('dialog', { name: 'Revoke invitation?' })
          .getByRole('button', { name: 'Revoke invitation' })
          .click()
        return
      case 'notice.dismiss':
        await button(context, 'Close message').click()
        return
      case 'xstate.error.actor.resendInvitation': {
        // Another Admin revokes the invitation while Resend is on the way.
        await gate.held('resendInvitation')
        const session = await apiSignIn(request)
        const response = await request.delete(`/api/personnel/${context.row.id}`, {
          headers: { Authorization: `Bearer ${session.jwt}` },
        })
        expect(response.status(), await response.text()).toBe(200)
        await gate.release('resendInvitation')
        return
      }
      case 'xstate.error.actor.revokeInvitation':
        await gate.release('revokeInvitation', apiError(409, 'ConflictError', fixtures.used))
        return
      default:
        await letAnswerThrough(gate, event)
    }
  },

  async expectStep(context, i) {
    const { page, path, gate, state } = atStep(context, i)
    const { notice } = state.context
    if (notice) {
      const role = notice.type === 'success' ? 'status' : 'alert'
      await expect(
        page.getByRole(role).filter({ hasText: shown(context, notice.message) }),
      ).toBeVisible()
    } else {
      await expect(button(context, 'Close message')).toHaveCount(0)
    }
    const revoked = path.steps
      .slice(1, i + 1)
      .some((step) => step.event.type === 'xstate.done.actor.revokeInvitation')
    switch (state.value) {
      case 'idle':
        await expect(button(context, 'Invite')).toBeEnabled()
        // A revoked invitation has no buttons any more (the list reloads after a success).
        if (revoked) {
          await expect(resend(context)).toHaveCount(0)
        } else {
          await expect(resend(context)).toBeEnabled()
          await expect(revoke(context)).toBeEnabled()
        }
        return
      case 'inviting':
        await gate.held('invitePersonnel')
        await expect(button(context, 'Invite')).toHaveAttribute('data-loading')
        return
      case 'resending':
        await gate.held('resendInvitation')
        await expect(resend(context)).toHaveAttribute('data-loading')
        await expect(button(context, 'Invite')).toBeDisabled()
        return
      case 'revoking':
        await gate.held('revokeInvitation')
        await expect(revoke(context)).toHaveAttribute('data-loading')
        await expect(button(context, 'Invite')).toBeDisabled()
        return
      default:
        throw new Error(`no screen check for ${JSON.stringify(state.value)}`)
    }
  },
}

replayFlow<Context>(
  personnelInvitationsFlow,
  { [personnelInvitationsModel.name]: replayer },
  (base) => ({ ...base, row: { id: '', email: '' }, invited: '' }),
)
