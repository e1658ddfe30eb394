import { Anchor, type AnchorProps, Button, type ButtonProps } from '@mantine/core'
import { createLink } from '@tanstack/react-router'
import type { ComponentPropsWithRef } from 'react'

// Mantine components rendered as router links, so `to` and `params` are type-checked against the
// route tree and navigation stays inside the app (no page reload). The menu and navbar links live
// in shell-links.tsx: Menu and NavLink bring Popover and floating-ui, which public pages must not
// download.

/** The anchor element's own props, as a router link passes them on. */
export type AnchorElementProps = Omit<ComponentPropsWithRef<'a'>, 'color' | 'style'>

/** A Mantine `Anchor` that navigates with the router. */
export const AnchorLink = createLink((props: AnchorProps & AnchorElementProps) => (
  <Anchor {...props} />
))

/** A Mantine `Button` that navigates with the router. */
export const ButtonLink = createLink((props: ButtonProps & AnchorElementProps) => (
  <Button component="a" {...props} />
))
