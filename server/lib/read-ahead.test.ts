import { describe, expect, it } from 'vitest'
import { deferred } from '#tests/support/deferred.ts'
import { readAhead } from './read-ahead.ts'

/** Pages 1…last, each read held until the test lets it answer. */
function pagesUpTo(last: number) {
  const asked: number[] = []
  const answers = new Map<number, ReturnType<typeof deferred<number>>>()
  const answerOf = (page: number) => {
    let found = answers.get(page)
    if (!found) {
      found = deferred<number>()
      answers.set(page, found)
    }
    return found
  }
  return {
    asked,
    answer: (page: number) => answerOf(page).resolve(page),
    fail: (page: number, error: Error) => answerOf(page).reject(error),
    read: (page: number) => {
      asked.push(page)
      return answerOf(page).promise
    },
    nextOf: (page: number) => (page < last ? page + 1 : null),
  }
}

const settled = () => new Promise((resolve) => setImmediate(resolve))

describe('readAhead', () => {
  it('reads the next pages while one is worked on, at most `depth` ahead, in order', async () => {
    const pages = pagesUpTo(6)
    const reader = readAhead(1, pages.read, pages.nextOf, 2)
    for (const page of [1, 2, 3]) pages.answer(page)
    await settled()
    // Pages 1 and 2 wait to be taken: the reading paused before asking for a third.
    expect(pages.asked).toEqual([1, 2])
    expect(await reader.next()).toBe(1)
    await settled()
    expect(pages.asked).toEqual([1, 2, 3])
    expect(await reader.next()).toBe(2)
    expect(await reader.next()).toBe(3)
    for (const page of [4, 5, 6]) pages.answer(page)
    expect([await reader.next(), await reader.next(), await reader.next()]).toEqual([4, 5, 6])
    await expect(reader.next()).rejects.toThrow('There is no page left to read.')
  })

  it('throws a failed read when the consumer reaches it, after the pages before it', async () => {
    const pages = pagesUpTo(5)
    const reader = readAhead(1, pages.read, pages.nextOf, 3)
    pages.answer(1)
    pages.fail(2, new Error('Nextech is not answering.'))
    expect(await reader.next()).toBe(1)
    await expect(reader.next()).rejects.toThrow('Nextech is not answering.')
    await settled()
    expect(pages.asked).toEqual([1, 2])
  })

  it('asks for nothing more once stopped', async () => {
    const pages = pagesUpTo(5)
    const reader = readAhead(1, pages.read, pages.nextOf, 1)
    pages.answer(1)
    expect(await reader.next()).toBe(1)
    reader.stop()
    pages.answer(2)
    await settled()
    expect(pages.asked).toEqual([1, 2])
    await expect(reader.next()).rejects.toThrow('There is no page left to read.')
  })
})
