import {
  Anchor,
  type AnchorProps,
  Button,
  type ButtonProps,
  Menu,
  type MenuItemProps,
  NavLink,
  type NavLinkProps,
} from '@mantine/core'
import { createLink } from '@tanstack/react-router'
import type { ComponentPropsWithRef } from 'react'

// Mantine components rendered as router links, so `to` and `params` are type-checked against the
// route tree and navigation stays inside the app (no page reload).

type AnchorElementProps = Omit<ComponentPropsWithRef<'a'>, 'color' | 'style'>

/** A Mantine `Anchor` that navigates with the router. */
export const AnchorLink = createLink((props: AnchorProps & AnchorElementProps) => (
  <Anchor {...props} />
))

/** A Mantine `Button` that navigates with the router. */
export const ButtonLink = createLink((props: ButtonProps & AnchorElementProps) => (
  <Button component="a" {...props} />
))

/** A Mantine `Menu.Item` that navigates with the router. */
export const MenuItemLink = createLink((props: MenuItemProps & AnchorElementProps) => (
  <Menu.Item component="a" {...props} />
))

/** A Mantine `NavLink` that navigates with the router. */
export const NavLinkLink = createLink((props: NavLinkProps & AnchorElementProps) => (
  <NavLink {...props} />
))
