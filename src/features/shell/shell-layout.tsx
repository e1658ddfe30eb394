import { Anchor, AppShell, Box, Burger, Group, Image, Text } from '@mantine/core'
import { useDisclosure, useMediaQuery } from '@mantine/hooks'
import { Link, useLocation } from '@tanstack/react-router'
import { type ReactNode, useCallback, useEffect, useRef } from 'react'
import { copyrightLine, footerLinks } from '#domain/footer-links.ts'
import type { Session } from '#domain/session.ts'
import { env } from '#src/lib/env.ts'
import { NavLinkLink } from '#src/ui/shell-links.tsx'
import { NAV_ITEMS } from './nav-items.ts'
import classes from './shell-layout.module.css'
import { UserMenu } from './user-menu.tsx'

/** Width of the side menu; on phones the closed menu waits at -287px. */
const NAVBAR_WIDTH = 287

/**
 * The signed-in frame: header with the practice logo, greeting and avatar menu; side
 * menu with the nine areas, a burger below 768 px; the page; the footer with the site links (the
 * practice's own, else the product's Terms, Agreement, About and support e-mail).
 */
export function ShellLayout({ session, children }: { session: Session; children: ReactNode }) {
  const [opened, { toggle, close }] = useDisclosure(false)
  const isMobile = useMediaQuery('(max-width: 47.99em)') ?? false
  const pathname = useLocation({ select: (location) => location.pathname })
  const logo = session.practice.image_path
  const burgerRef = useRef<HTMLButtonElement>(null)
  const mainRef = useRef<HTMLElement>(null)
  const menuOpen = opened && isMobile

  // Escape or a tap beside the phone menu closes it, and the keyboard focus goes back to the burger
  // that opened it.
  const dismissMenu = useCallback(() => {
    close()
    burgerRef.current?.focus()
  }, [close])
  useEffect(() => {
    if (!menuOpen) return
    const onKey = (event: KeyboardEvent) => {
      if (event.key === 'Escape') dismissMenu()
    }
    document.addEventListener('keydown', onKey)
    return () => document.removeEventListener('keydown', onKey)
  }, [menuOpen, dismissMenu])

  return (
    <AppShell
      header={{ height: 64 }}
      navbar={{ width: NAVBAR_WIDTH, breakpoint: 'sm', collapsed: { mobile: !opened } }}
      padding={0}
    >
      {/* biome-ignore lint/a11y/useValidAnchor: a skip link is a link to a place on the page; it moves the focus itself, so the router never sees a hash. */}
      <a
        href="#main-content"
        className={classes.skipLink}
        onClick={(event) => {
          // Focus the page itself: a hash in the address would be taken for a navigation.
          event.preventDefault()
          mainRef.current?.focus()
          mainRef.current?.scrollIntoView({ block: 'start' })
        }}
      >
        Skip to content
      </a>
      <AppShell.Header className={classes.header}>
        <Group h="100%" px="md" justify="space-between" wrap="nowrap" gap="sm">
          <Group gap="sm" wrap="nowrap" miw={0}>
            <Burger
              ref={burgerRef}
              opened={opened}
              onClick={toggle}
              hiddenFrom="sm"
              size="sm"
              aria-label={opened ? 'Close navigation' : 'Open navigation'}
              aria-expanded={opened}
              aria-controls="shell-navigation"
            />
            <Link to="/dashboard" aria-label="Dashboard" className={classes.logoLink}>
              {logo ? (
                <Image src={logo} alt="Practice logo" h={40} w="auto" maw={160} fit="contain" />
              ) : (
                <Image
                  src="/logo.svg"
                  alt="Practice logo"
                  h={32}
                  w="auto"
                  maw={160}
                  fit="contain"
                />
              )}
            </Link>
          </Group>
          <UserMenu user={session.user} />
        </Group>
      </AppShell.Header>

      <AppShell.Navbar
        id="shell-navigation"
        p="sm"
        aria-label="Main navigation"
        component="nav"
        // Mantine makes the phone menu full width; the spec's menu is 287px and slides out to -287px.
        style={{ '--app-shell-navbar-width': `${NAVBAR_WIDTH}px` }}
        // A closed phone menu is off screen: keep its links out of the tab order too.
        inert={isMobile && !opened}
      >
        {NAV_ITEMS.map(({ to, label, icon: Icon }) => (
          <NavLinkLink
            key={to}
            to={to}
            label={label}
            leftSection={<Icon size={20} stroke={1.6} aria-hidden />}
            active={pathname === to || pathname.startsWith(`${to}/`)}
            onClick={close}
            className={classes.navLink}
          />
        ))}
      </AppShell.Navbar>

      {menuOpen && (
        // A pointer-only way out: keyboard users have Escape, so the backdrop is no control.
        <div className={classes.backdrop} onClick={dismissMenu} aria-hidden />
      )}

      <AppShell.Main className={classes.main} id="main-content" tabIndex={-1} ref={mainRef}>
        <Box className={classes.content}>{children}</Box>
        <Box component="footer" className={classes.footer}>
          <Group gap="md" justify="center" wrap="wrap" component="nav" aria-label="Footer">
            {footerLinks(
              session.practice.footer_links,
              env.VITE_SUPPORT_EMAIL,
              session.practice.email,
            ).map(({ href, label }) =>
              // Pages open beside the app, so the work in progress stays; e-mail opens the mailer.
              href.startsWith('mailto:') ? (
                <Anchor key={label} href={href} size="sm">
                  {label}
                </Anchor>
              ) : (
                <Anchor key={label} href={href} size="sm" target="_blank" rel="noopener noreferrer">
                  {label}
                </Anchor>
              ),
            )}
          </Group>
          <Text size="sm" c="dimmed" ta="center" mt="xs">
            {copyrightLine()}
          </Text>
        </Box>
      </AppShell.Main>
    </AppShell>
  )
}
