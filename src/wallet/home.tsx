import { Alert, Button, Container, Group, Stack, Text, TextInput, Title } from '@mantine/core'
import { useState } from 'react'
import type { WalletMe } from '#domain/wallet.ts'
import type { WalletCalls } from './api.ts'
import { ConsentSection } from './consent.tsx'
import { calendarDay, dateTime, longDate, money, points } from './format.ts'
import { MembershipSection } from './membership.tsx'
import { OffersSection } from './offers.tsx'
import { Section } from './section.tsx'

type Props = {
  wallet: WalletMe
  /** When the service worker kept this answer (offline); null when it is fresh. */
  cachedAt: string | null
  calls: WalletCalls
  /** The session ended (401). */
  onSignedOut: () => void
  /** The patient logged out. */
  onLoggedOut: () => void
}

/**
 * The signed-in wallet: the practice's name and logo, the points and their worth, points expiring
 * soon, offers, the membership, the history in words, message consent, the referral link and
 * Log out. Offline, the last answer kept, under a banner that says so.
 */
export function WalletHome({ wallet: first, cachedAt, calls, onSignedOut, onLoggedOut }: Props) {
  const [wallet, setWallet] = useState(first)
  const [loggingOut, setLoggingOut] = useState(false)
  const { practice, patient } = wallet
  const onWallet = (changed: WalletMe) => {
    setWallet(changed)
    // Asked again through the service worker, so that what it keeps for offline reading is what
    // the patient sees now.
    void calls.me().catch(() => undefined)
  }
  const section = { wallet, onWallet, onSignedOut }

  return (
    <Container size={560} px="md" className="wallet-page">
      <Stack gap="md">
        <header>
          <Group justify="space-between" wrap="nowrap" gap="sm">
            <Group gap="sm" wrap="nowrap" miw={0}>
              {practice.logo_url && (
                <img
                  className="wallet-logo"
                  src={practice.logo_url}
                  alt=""
                  width={48}
                  height={48}
                />
              )}
              <Title order={1} size="h3" style={{ overflowWrap: 'anywhere' }}>
                {practice.name}
              </Title>
            </Group>
            <Button
              variant="default"
              size="sm"
              loading={loggingOut}
              onClick={async () => {
                setLoggingOut(true)
                // Whatever the server answers (offline, already ended), this device forgets it.
                await calls.logout().catch(() => undefined)
                onLoggedOut()
              }}
            >
              Log out
            </Button>
          </Group>
        </header>
        <main>
          <Stack gap="md">
            {cachedAt && (
              <Alert color="orange" role="status" title="You are offline">
                This is your wallet as it was on {dateTime(cachedAt)}. Changes need a connection.
              </Alert>
            )}
            <Section title={`Hi ${patient.first_name}`}>
              <div>
                <Text className="wallet-balance" component="p">
                  {points(patient.points)}
                </Text>
                <Text>
                  worth {money(patient.points_value_cents)} at {practice.name}
                </Text>
              </div>
              {patient.expiring.length > 0 && (
                <div>
                  <Text fw={600} component="h3" size="md">
                    Expiring soon
                  </Text>
                  <ul className="wallet-list">
                    {patient.expiring.map((lot) => (
                      <li key={lot.expires_on}>
                        <Text py={4}>
                          {points(lot.points)} expire on {calendarDay(lot.expires_on)}
                        </Text>
                      </li>
                    ))}
                  </ul>
                </div>
              )}
            </Section>
            <MembershipSection {...section} calls={calls} />
            <OffersSection {...section} calls={calls} />
            <Section title="History">
              {wallet.history.length === 0 ? (
                <Text>No points yet. Points you earn at your visits will show here.</Text>
              ) : (
                <ul className="wallet-list">
                  {wallet.history.map((line) => (
                    <li key={`${line.at}-${line.kind}-${line.points}-${line.text}`}>
                      <Group justify="space-between" wrap="nowrap" gap="sm" py={6}>
                        <div>
                          <Text>{line.text}</Text>
                          <Text size="sm" c="dimmed">
                            {longDate(line.at)}
                          </Text>
                        </div>
                        <Text fw={600} style={{ whiteSpace: 'nowrap' }}>
                          {line.points > 0 ? `+${line.points}` : `${line.points}`}
                        </Text>
                      </Group>
                    </li>
                  ))}
                </ul>
              )}
            </Section>
            <ConsentSection {...section} calls={calls} />
            <ReferralSection url={patient.referral_url} practiceName={practice.name} />
          </Stack>
        </main>
      </Stack>
    </Container>
  )
}

function ReferralSection({ url, practiceName }: { url: string; practiceName: string }) {
  const [copied, setCopied] = useState<string | null>(null)
  const canShare = typeof navigator !== 'undefined' && typeof navigator.share === 'function'
  return (
    <Section title="Invite a friend">
      <Text>Share your link: friends who join {practiceName} with it earn you points.</Text>
      <TextInput
        label="Your referral link"
        value={url}
        readOnly
        onFocus={(e) => e.currentTarget.select()}
      />
      <Group gap="sm">
        <Button
          variant="light"
          onClick={async () => {
            try {
              await navigator.clipboard.writeText(url)
              setCopied('Link copied.')
            } catch {
              setCopied('Could not copy: select the link above and copy it.')
            }
          }}
        >
          Copy link
        </Button>
        {canShare && (
          <Button
            variant="light"
            onClick={() => {
              void navigator.share({ title: practiceName, url }).catch(() => undefined)
            }}
          >
            Share
          </Button>
        )}
      </Group>
      {copied && (
        <Text size="sm" role="status">
          {copied}
        </Text>
      )}
    </Section>
  )
}
