import { describe, expect, it } from 'vitest'
import { patientTemplateMail } from './service.ts'
import { pointsReminderEmail, pointsStatementEmail } from './templates.ts'

const PUBLIC_URL = 'https://glow.example'
const patient = {
  first_name: '<b>Ann & "Jo"</b>',
  email: 'ann@example.com',
  email_subscription: true,
  archived_at: null,
  unsubscribe_id: 'abcdefghijklmnopqrstuv',
}
const UNSUBSCRIBE = 'https://glow.example/unsubscribe/abcdefghijklmnopqrstuv'

describe('the points statement e-mail', () => {
  const props = {
    publicUrl: PUBLIC_URL,
    practice: { practice_name: 'Glow & Co', postal_address: '1 Main St, Springfield' },
    firstName: patient.first_name,
    earned: 30,
    balance: 1,
    visitedAt: '2027-03-04T15:00:00.000Z',
  }

  it('has its subject and text, the name verbatim in the text and escaped in the HTML', () => {
    const message = patientTemplateMail(pointsStatementEmail, patient, props)
    if (message?.channel !== 'email') throw new Error('no e-mail')
    expect(message.to).toBe('ann@example.com')
    expect(message.subject).toBe('Your points statement from Glow & Co')
    expect(message.text).toBe(
      [
        'Hello <b>Ann & "Jo"</b>,',
        'Thank you for your visit on March 4, 2027. You earned 30 points.',
        'Your balance is now 1 point.',
        `Glow & Co\n1 Main St, Springfield\nYou receive this e-mail from Glow & Co's rewards programme. Unsubscribe: ${UNSUBSCRIBE}`,
      ].join('\n\n'),
    )
    expect(message.link).toBeUndefined()
    expect(message.headers).toEqual({
      'List-Unsubscribe': `<https://glow.example/api/unsubscribe/abcdefghijklmnopqrstuv>, <${UNSUBSCRIBE}>`,
      'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
    })
    expect(message.html).toContain('<title>Your points statement from Glow &amp; Co</title>')
    expect(message.html).toContain(
      '<p style="margin:0 0 16px">Hello &lt;b&gt;Ann &amp; &quot;Jo&quot;&lt;/b&gt;,</p>',
    )
    expect(message.html).toContain('Glow &amp; Co<br/>1 Main St, Springfield')
    expect(message.html).toContain(`<a href="${UNSUBSCRIBE}" style="color:#555555">Unsubscribe</a>`)
    expect(message.html).not.toContain('<b>')
  })

  it('is not made for a patient marketing e-mail may not reach', () => {
    expect(
      patientTemplateMail(pointsStatementEmail, { ...patient, email_subscription: false }, props),
    ).toBeNull()
    expect(patientTemplateMail(pointsStatementEmail, { ...patient, email: null }, props)).toBeNull()
  })
})

describe('the points reminder e-mail', () => {
  it('has its subject and text', () => {
    const mail = pointsReminderEmail.render({
      publicUrl: PUBLIC_URL,
      practice: { practice_name: 'Glow', logo_url: 'https://glow.example/logo.png' },
      unsubscribeId: patient.unsubscribe_id,
      firstName: 'Zoë',
      points: 120,
      expiresAt: '2027-03-01T10:00:00.000Z',
      balance: 150,
    })
    expect(mail.subject).toBe('120 points expire on March 1, 2027')
    expect(mail.text).toBe(
      [
        'Hello Zoë,',
        '120 points of your Glow rewards expire on March 1, 2027. Your balance is 150 points.',
        'Use them at your next visit before they lapse.',
        `Glow\nLogo: https://glow.example/logo.png\nYou receive this e-mail from Glow's rewards programme. Unsubscribe: ${UNSUBSCRIBE}`,
      ].join('\n\n'),
    )
    expect(mail.html).toContain('<img src="https://glow.example/logo.png" alt="Glow logo"')
    expect(mail.html).toContain('Hello Zoë,')
  })
})
