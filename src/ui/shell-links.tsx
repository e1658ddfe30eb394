import { Menu, type MenuItemProps, NavLink, type NavLinkProps } from '@mantine/core'
import { createLink } from '@tanstack/react-router'
import type { AnchorElementProps } from './links.tsx'

// The signed-in shell's router links, apart from links.tsx so that only the shell's chunk carries
// Menu, NavLink and what they need (Popover, floating-ui).

/** A Mantine `Menu.Item` that navigates with the router. */
export const MenuItemLink = createLink((props: MenuItemProps & AnchorElementProps) => (
  <Menu.Item component="a" {...props} />
))

/** A Mantine `NavLink` that navigates with the router. */
export const NavLinkLink = createLink((props: NavLinkProps & AnchorElementProps) => (
  <NavLink {...props} />
))
