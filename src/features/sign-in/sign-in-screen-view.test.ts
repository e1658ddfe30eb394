import { describe, expect, it } from 'vitest'
import { createActor } from 'xstate'
import {
  type SignInScreenInput,
  signInScreenMachine,
} from '#machines/auth/sign-in-screen.machine.ts'
import { signInScreenView, signInScreenViewBeforeStart } from './sign-in-screen-view.ts'

/** Every input a route can open the screen with, reset code or not. */
function inputs(): SignInScreenInput[] {
  const all: SignInScreenInput[] = []
  for (const resetCode of [null, undefined, '', 'ABC123'])
    for (const lastUsedResetCode of [null, 'ABC123', 'OTHER'])
      for (const captchaRequired of [false, true])
        for (const personnelSignedUp of [undefined, false, true])
          all.push({ resetCode, lastUsedResetCode, captchaRequired, personnelSignedUp })
  return all
}

describe("the sign-in screen's view before its machine arrives", () => {
  it("is the machine's own first view for every input without a reset code", () => {
    let compared = 0
    for (const input of inputs()) {
      const before = signInScreenViewBeforeStart(input)
      const actor = createActor(signInScreenMachine, { input }).start()
      const first = signInScreenView(actor.getSnapshot())
      actor.stop()
      if (input.resetCode) {
        // Only the machine knows: the reset form, or the outdated notice.
        expect(before).toBeNull()
        continue
      }
      expect(before, JSON.stringify(input)).toEqual(first)
      compared += 1
    }
    expect(compared).toBe(54)
  })
})
