import { Alert, Button, Container, Loader, Stack, Text } from '@mantine/core'
import {
  type ComponentType,
  lazy,
  Suspense,
  useCallback,
  useEffect,
  useMemo,
  useState,
} from 'react'
import { WALLET_MESSAGES } from '#domain/wallet.ts'
import {
  forgetCachedWallet,
  type LoadedWallet,
  type WalletCalls,
  WalletSignedOutError,
  walletCalls,
} from './api.ts'
import {
  clearWalletSession,
  readWalletSession,
  saveWalletSession,
  type WalletSession,
} from './session.ts'

// The signed-in screens (and @mantine/form) load only with a session: the sign-in, the first
// screen of most visits, does not wait for them.
const WalletHome = lazy(() =>
  import('./home.tsx').then((module) => ({ default: module.WalletHome })),
)

/** The sign-in view's props (src/wallet/sign-in/): it hands over the new session. */
export type WalletSignInProps = {
  practiceId: number
  practiceName?: string | undefined
  onSignedIn: (session: WalletSession) => void
}

type Props = {
  practiceId: number | null
  practiceName?: string | undefined
  /** The sign-in view (src/wallet/sign-in/). */
  signIn: ComponentType<WalletSignInProps>
  /** The calls of a session; tests pass fakes. */
  callsFor?: (session: WalletSession, onRenewed: (expiresAt: string) => void) => WalletCalls
}

/**
 * The wallet: signed out, the sign-in by code; signed in, the patient's home screen, loaded from
 * `GET /api/wallet/me` (or, offline, from the answer the service worker kept). A session that
 * ends (401) or a logout brings the sign-in back, and forgets the kept answer.
 */
export function WalletApp({ practiceId, practiceName, signIn: SignIn, callsFor }: Props) {
  const [session, setSession] = useState<WalletSession | null>(() =>
    practiceId === null ? null : readWalletSession(practiceId),
  )
  const [notice, setNotice] = useState<string | null>(null)

  const signOut = useCallback(
    (message: string) => {
      if (practiceId !== null) clearWalletSession(practiceId)
      void forgetCachedWallet()
      setSession(null)
      setNotice(message)
    },
    [practiceId],
  )

  if (practiceId === null) {
    return (
      <Container size={560} className="wallet-page">
        <main>
          <Alert color="orange" role="alert" title="Wallet not found">
            {WALLET_MESSAGES.practiceNotFound}
          </Alert>
        </main>
      </Container>
    )
  }

  if (!session) {
    return (
      <Container size={560} className="wallet-page">
        <main>
          <Stack gap="md">
            {notice && (
              <Alert color="green" role="status">
                {notice}
              </Alert>
            )}
            <SignIn
              practiceId={practiceId}
              practiceName={practiceName}
              onSignedIn={(signedIn) => {
                saveWalletSession(practiceId, signedIn)
                setNotice(null)
                setSession(signedIn)
              }}
            />
          </Stack>
        </main>
      </Container>
    )
  }

  return (
    <SignedIn
      key={session.token}
      practiceId={practiceId}
      session={session}
      callsFor={callsFor ?? defaultCalls}
      onSignedOut={signOut}
    />
  )
}

const defaultCalls: NonNullable<Props['callsFor']> = (session, onRenewed) =>
  walletCalls(session.token, onRenewed)

type Loaded =
  | { state: 'loading' }
  | { state: 'failed'; message: string }
  | ({ state: 'ready' } & LoadedWallet)

function SignedIn({
  practiceId,
  session,
  callsFor,
  onSignedOut,
}: {
  practiceId: number
  session: WalletSession
  callsFor: NonNullable<Props['callsFor']>
  onSignedOut: (message: string) => void
}) {
  const calls = useMemo(
    () =>
      callsFor(session, (expiresAt) =>
        saveWalletSession(practiceId, { token: session.token, expires_at: expiresAt }),
      ),
    [callsFor, practiceId, session],
  )
  const [loaded, setLoaded] = useState<Loaded>({ state: 'loading' })

  const load = useCallback(async () => {
    setLoaded({ state: 'loading' })
    try {
      const answer = await calls.me()
      setLoaded({ state: 'ready', ...answer })
    } catch (error) {
      if (error instanceof WalletSignedOutError) onSignedOut(WALLET_MESSAGES.signedOut)
      else setLoaded({ state: 'failed', message: (error as Error).message })
    }
  }, [calls, onSignedOut])

  useEffect(() => {
    void load()
  }, [load])

  // On the first visit the service worker takes the page over only after `/me` was answered:
  // asked once more through it, so that the answer is kept for offline reading.
  useEffect(() => {
    const workers = 'serviceWorker' in navigator ? navigator.serviceWorker : null
    if (!workers || workers.controller) return
    const keep = () => void calls.me().catch(() => undefined)
    workers.addEventListener('controllerchange', keep, { once: true })
    return () => workers.removeEventListener('controllerchange', keep)
  }, [calls])

  if (loaded.state === 'loading') return <Loading />
  if (loaded.state === 'failed') {
    return (
      <Container size={560} className="wallet-page">
        <main>
          <Stack gap="md">
            <Alert color="red" role="alert" title="Your wallet could not be loaded">
              {loaded.message}
            </Alert>
            <Button onClick={() => void load()}>Try again</Button>
            <Button variant="default" onClick={() => onSignedOut(WALLET_MESSAGES.signedOutNow)}>
              Sign in again
            </Button>
          </Stack>
        </main>
      </Container>
    )
  }
  return (
    <Suspense fallback={<Loading />}>
      <WalletHome
        wallet={loaded.wallet}
        cachedAt={loaded.cachedAt}
        calls={calls}
        onSignedOut={() => onSignedOut(WALLET_MESSAGES.signedOut)}
        onLoggedOut={() => onSignedOut(WALLET_MESSAGES.signedOutNow)}
      />
    </Suspense>
  )
}

function Loading() {
  return (
    <Container size={560} className="wallet-page">
      <main aria-busy="true">
        <Stack align="center" py="xl" gap="sm">
          <Loader aria-hidden />
          <Text>Loading your wallet…</Text>
        </Stack>
      </main>
    </Container>
  )
}
