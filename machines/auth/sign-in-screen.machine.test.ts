import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { createActor, fromPromise, waitFor } from 'xstate'
import type { ForgotPasswordForm, SignInPayload } from '#domain/auth.ts'
import type { Session } from '#domain/session.ts'
import {
  OUTDATED_NOTICE_MS,
  type ResetPasswordActorInput,
  type SignInScreenInput,
  signInScreenMachine,
} from '#machines/auth/sign-in-screen.machine.ts'
import { fixtureSession, fixtures } from '#tests/flows/sign-in-screen/model.ts'

// The fixtures of the flow model (tests/flows/sign-in-screen/model.ts).
const session: Session = fixtureSession
const signInForm = fixtures.signIn
const resetForm = fixtures.reset

type Fakes = {
  signIn?: (input: SignInPayload) => Promise<Session>
  requestPasswordReset?: (input: ForgotPasswordForm) => Promise<void>
  resetPassword?: (input: ResetPasswordActorInput) => Promise<Session>
}

/** Starts the real machine with fake actors and spies in every action slot. */
function start(input: Partial<SignInScreenInput> = {}, fakes: Fakes = {}) {
  const calls = {
    signIn: [] as SignInPayload[],
    requestPasswordReset: [] as ForgotPasswordForm[],
    resetPassword: [] as ResetPasswordActorInput[],
  }
  const onSignedIn = vi.fn()
  const onResetCodeUsed = vi.fn()
  const onResetLinkOutdated = vi.fn()
  const machine = signInScreenMachine.provide({
    actors: {
      signIn: fromPromise<Session, SignInPayload>(({ input }) => {
        calls.signIn.push(input)
        return fakes.signIn ? fakes.signIn(input) : Promise.resolve(session)
      }),
      requestPasswordReset: fromPromise<void, ForgotPasswordForm>(({ input }) => {
        calls.requestPasswordReset.push(input)
        return fakes.requestPasswordReset ? fakes.requestPasswordReset(input) : Promise.resolve()
      }),
      resetPassword: fromPromise<Session, ResetPasswordActorInput>(({ input }) => {
        calls.resetPassword.push(input)
        return fakes.resetPassword ? fakes.resetPassword(input) : Promise.resolve(session)
      }),
    },
    actions: {
      onSignedIn: (_, params) => onSignedIn(params),
      onResetCodeUsed: (_, params) => onResetCodeUsed(params),
      onResetLinkOutdated: (_, params) => onResetLinkOutdated(params),
    },
  })
  const actor = createActor(machine, { input: { captchaRequired: false, ...input } }).start()
  return { actor, calls, onSignedIn, onResetCodeUsed, onResetLinkOutdated }
}

const never = <T>() => new Promise<T>(() => {})

describe('signInScreenMachine: opening', () => {
  it('opens the sign-in view without a reset code', () => {
    const { actor } = start()
    expect(actor.getSnapshot().matches({ signIn: { editing: 'ready' } })).toBe(true)
    expect(actor.getSnapshot().context.error).toBeNull()
    expect(actor.getSnapshot().context.notice).toBeNull()
  })

  it('opens the reset view with a fresh reset code', () => {
    const { actor } = start({ resetCode: 'abc', lastUsedResetCode: 'older' })
    expect(actor.getSnapshot().matches({ resetPassword: 'editing' })).toBe(true)
  })

  it('treats an empty code like no code', () => {
    const { actor } = start({ resetCode: '' })
    expect(actor.getSnapshot().matches('signIn')).toBe(true)
  })

  it('shows the personnel sign-up banner when asked', () => {
    const { actor } = start({ personnelSignedUp: true })
    expect(actor.getSnapshot().context.notice).toBe(
      'You are successfully Signed Up! Use your new credentials to sign into the system.',
    )
  })
})

describe('signInScreenMachine: an outdated reset link', () => {
  beforeEach(() => {
    vi.useFakeTimers()
  })
  afterEach(() => {
    vi.useRealTimers()
  })

  it('goes to sign-in with the notice for exactly 3 seconds when the code was used before', () => {
    const { actor, onResetLinkOutdated } = start({ resetCode: 'abc', lastUsedResetCode: 'abc' })
    expect(actor.getSnapshot().matches({ signIn: { editing: 'linkOutdated' } })).toBe(true)
    expect(actor.getSnapshot().context.error).toBe('Password Reset link is outdated!')
    expect(onResetLinkOutdated).toHaveBeenCalledWith({ code: 'abc' })

    vi.advanceTimersByTime(OUTDATED_NOTICE_MS - 1)
    expect(actor.getSnapshot().context.error).toBe('Password Reset link is outdated!')
    vi.advanceTimersByTime(1)
    expect(actor.getSnapshot().matches({ signIn: { editing: 'ready' } })).toBe(true)
    expect(actor.getSnapshot().context.error).toBeNull()
  })

  it('keeps the form usable during the notice: Forgot Password leaves it and stops the timer', () => {
    const { actor } = start({ resetCode: 'abc', lastUsedResetCode: 'abc' })
    actor.send({ type: 'link.forgot' })
    expect(actor.getSnapshot().matches({ forgotPassword: 'editing' })).toBe(true)
    expect(actor.getSnapshot().context.error).toBeNull()
    vi.advanceTimersByTime(OUTDATED_NOTICE_MS)
    expect(actor.getSnapshot().matches({ forgotPassword: 'editing' })).toBe(true)
  })

  it('lets the visitor sign in during the notice', () => {
    const { actor } = start({ resetCode: 'abc', lastUsedResetCode: 'abc' }, { signIn: never })
    actor.send({ type: 'signInForm.submit', input: signInForm })
    expect(actor.getSnapshot().matches({ signIn: 'submitting' })).toBe(true)
    expect(actor.getSnapshot().context.error).toBeNull()
  })

  it('shows a missing captcha during the notice without leaving it', () => {
    const { actor } = start({
      resetCode: 'abc',
      lastUsedResetCode: 'abc',
      captchaRequired: true,
    })
    actor.send({ type: 'signInForm.submit', input: signInForm })
    expect(actor.getSnapshot().matches({ signIn: { editing: 'linkOutdated' } })).toBe(true)
    expect(actor.getSnapshot().context.captchaError).toBe('This field is required.')
  })
})

describe('signInScreenMachine: sign in', () => {
  it('signs in and hands the session and Remember me to the route', async () => {
    const { actor, calls, onSignedIn } = start()
    actor.send({ type: 'signInForm.submit', input: signInForm })
    expect(actor.getSnapshot().matches({ signIn: 'submitting' })).toBe(true)
    await waitFor(actor, (s) => s.matches('signedIn'))
    expect(actor.getSnapshot().status).toBe('done')
    expect(calls.signIn).toEqual([
      { identifier: 'demo@example.com', password: 'DemoPass123', remember: true },
    ])
    expect(onSignedIn).toHaveBeenCalledWith({ session, remember: true })
  })

  it("shows the server's message when sign-in fails", async () => {
    const { actor, onSignedIn } = start(
      {},
      { signIn: () => Promise.reject(new Error('Too many attempts. Please wait.')) },
    )
    actor.send({ type: 'signInForm.submit', input: signInForm })
    await waitFor(actor, (s) => s.matches({ signIn: 'editing' }))
    expect(actor.getSnapshot().context.error).toBe('Too many attempts. Please wait.')
    expect(onSignedIn).not.toHaveBeenCalled()
  })

  it("falls back to 'Invalid Email or Password' when the failure has no text", async () => {
    const { actor } = start({}, { signIn: () => Promise.reject('nope') })
    actor.send({ type: 'signInForm.submit', input: signInForm })
    await waitFor(actor, (s) => s.matches({ signIn: { editing: 'ready' } }))
    expect(actor.getSnapshot().context.error).toBe('Invalid Email or Password')
  })

  it('clears the previous error and the personnel banner when the form is sent again', async () => {
    let fail = true
    const { actor } = start(
      { personnelSignedUp: true },
      {
        signIn: () => (fail ? Promise.reject(new Error('Invalid Email or Password')) : never()),
      },
    )
    actor.send({ type: 'signInForm.submit', input: signInForm })
    await waitFor(actor, (s) => s.context.error !== null)
    fail = false
    actor.send({ type: 'signInForm.submit', input: signInForm })
    expect(actor.getSnapshot().context).toMatchObject({ error: null, notice: null })
  })

  it('the placeholder actor rejects loudly when the route forgot to provide it', async () => {
    const actor = createActor(signInScreenMachine, { input: { captchaRequired: false } }).start()
    actor.send({ type: 'signInForm.submit', input: signInForm })
    await waitFor(actor, (s) => s.context.error !== null)
    expect(actor.getSnapshot().context.error).toBe('signIn: not provided')
  })
})

describe('signInScreenMachine: captcha', () => {
  it("refuses to send without a token: 'This field is required.'", () => {
    const { actor, calls } = start({ captchaRequired: true })
    actor.send({ type: 'signInForm.submit', input: signInForm })
    expect(actor.getSnapshot().matches({ signIn: { editing: 'ready' } })).toBe(true)
    expect(actor.getSnapshot().context.captchaError).toBe('This field is required.')
    expect(calls.signIn).toEqual([])
  })

  it('sends the token once the captcha is verified and clears the captcha error', async () => {
    const { actor, calls } = start({ captchaRequired: true })
    actor.send({ type: 'signInForm.submit', input: signInForm })
    actor.send({ type: 'captcha.verified', token: 'tok-1' })
    expect(actor.getSnapshot().context.captchaError).toBeNull()
    actor.send({ type: 'signInForm.submit', input: signInForm })
    await waitFor(actor, (s) => s.matches('signedIn'))
    expect(calls.signIn[0]?.recaptchaToken).toBe('tok-1')
  })

  it('forgets an expired token', () => {
    const { actor } = start({ captchaRequired: true })
    actor.send({ type: 'captcha.verified', token: 'tok-1' })
    actor.send({ type: 'captcha.expired' })
    expect(actor.getSnapshot().context.captchaToken).toBeNull()
    actor.send({ type: 'signInForm.submit', input: signInForm })
    expect(actor.getSnapshot().context.captchaError).toBe('This field is required.')
  })

  it('drops the single-use token after a failed attempt and counts the attempt', async () => {
    const { actor } = start(
      { captchaRequired: true },
      { signIn: () => Promise.reject(new Error('Invalid Email or Password')) },
    )
    actor.send({ type: 'captcha.verified', token: 'tok-1' })
    actor.send({ type: 'signInForm.submit', input: signInForm })
    await waitFor(actor, (s) => s.matches({ signIn: 'editing' }))
    expect(actor.getSnapshot().context).toMatchObject({ captchaToken: null, signInAttempts: 1 })
  })

  it('sends no token when the captcha is off', async () => {
    const { actor, calls } = start({ captchaRequired: false })
    actor.send({ type: 'signInForm.submit', input: signInForm })
    await waitFor(actor, (s) => s.matches('signedIn'))
    expect(calls.signIn[0]).not.toHaveProperty('recaptchaToken')
  })
})

describe('signInScreenMachine: forgot password', () => {
  it('goes to the forgot view and back with Cancel', () => {
    const { actor } = start()
    actor.send({ type: 'link.forgot' })
    expect(actor.getSnapshot().matches({ forgotPassword: 'editing' })).toBe(true)
    actor.send({ type: 'link.back' })
    expect(actor.getSnapshot().matches({ signIn: { editing: 'ready' } })).toBe(true)
  })

  it('requests the link and reaches the sent state, then returns to sign-in', async () => {
    const { actor, calls } = start()
    actor.send({ type: 'link.forgot' })
    actor.send({ type: 'forgotForm.submit', input: { email: 'demo@example.com' } })
    expect(actor.getSnapshot().matches({ forgotPassword: 'sending' })).toBe(true)
    await waitFor(actor, (s) => s.matches({ forgotPassword: 'sent' }))
    expect(calls.requestPasswordReset).toEqual([{ email: 'demo@example.com' }])
    actor.send({ type: 'link.back' })
    expect(actor.getSnapshot().matches({ signIn: { editing: 'ready' } })).toBe(true)
  })

  it("shows 'Please enter a valid email' when the request fails without a text", async () => {
    const { actor } = start({}, { requestPasswordReset: () => Promise.reject(undefined) })
    actor.send({ type: 'link.forgot' })
    actor.send({ type: 'forgotForm.submit', input: { email: 'demo@example.com' } })
    await waitFor(actor, (s) => s.matches({ forgotPassword: 'editing' }))
    expect(actor.getSnapshot().context.error).toBe('Please enter a valid email')
  })

  it("shows the server's text (a rate limit) and clears it on the next try", async () => {
    const { actor } = start(
      {},
      {
        requestPasswordReset: () =>
          Promise.reject(new Error('Too many attempts. Please wait a few minutes and try again.')),
      },
    )
    actor.send({ type: 'link.forgot' })
    actor.send({ type: 'forgotForm.submit', input: { email: 'demo@example.com' } })
    await waitFor(actor, (s) => s.context.error !== null)
    expect(actor.getSnapshot().context.error).toBe(
      'Too many attempts. Please wait a few minutes and try again.',
    )
    actor.send({ type: 'forgotForm.submit', input: { email: 'demo@example.com' } })
    expect(actor.getSnapshot().context.error).toBeNull()
  })
})

describe('signInScreenMachine: reset password', () => {
  beforeEach(() => {
    vi.useFakeTimers()
  })
  afterEach(() => {
    vi.useRealTimers()
  })

  it('resets with the code, remembers the code and signs in without Remember me', async () => {
    const { actor, calls, onSignedIn, onResetCodeUsed } = start({ resetCode: 'abc' })
    actor.send({ type: 'resetForm.submit', input: resetForm })
    expect(actor.getSnapshot().matches({ resetPassword: 'submitting' })).toBe(true)
    await vi.waitFor(() => expect(actor.getSnapshot().matches('signedIn')).toBe(true))
    expect(calls.resetPassword).toEqual([
      { password: 'NewPass123', passwordConfirmation: 'NewPass123', code: 'abc' },
    ])
    expect(onResetCodeUsed).toHaveBeenCalledWith({ code: 'abc' })
    expect(onSignedIn).toHaveBeenCalledWith({ session, remember: false })
  })

  it('a failed reset shows the outdated notice on the sign-in view for 3 seconds', async () => {
    const { actor, onResetCodeUsed, onResetLinkOutdated, onSignedIn } = start(
      { resetCode: 'abc' },
      { resetPassword: () => Promise.reject(new Error('Password Reset link is outdated!')) },
    )
    actor.send({ type: 'resetForm.submit', input: resetForm })
    await vi.waitFor(() =>
      expect(actor.getSnapshot().matches({ signIn: { editing: 'linkOutdated' } })).toBe(true),
    )
    expect(actor.getSnapshot().context.error).toBe('Password Reset link is outdated!')
    expect(onResetCodeUsed).toHaveBeenCalledWith({ code: 'abc' })
    expect(onResetLinkOutdated).toHaveBeenCalledWith({ code: 'abc' })
    expect(onSignedIn).not.toHaveBeenCalled()
    vi.advanceTimersByTime(OUTDATED_NOTICE_MS)
    expect(actor.getSnapshot().matches({ signIn: { editing: 'ready' } })).toBe(true)
    expect(actor.getSnapshot().context.error).toBeNull()
  })
})
