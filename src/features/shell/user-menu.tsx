import { Avatar, Group, Menu, Text, UnstyledButton } from '@mantine/core'
import { IconChevronDown, IconLogout, IconUserCircle } from '@tabler/icons-react'
import type { Session } from '#domain/session.ts'
import { MenuItemLink } from '#src/ui/shell-links.tsx'

/**
 * The header's greeting and avatar menu: 'Hello, ' with the first and last name,
 * the avatar image or the first initial of the first name, and a menu with My Profile and Logout.
 */
export function UserMenu({ user }: { user: Session['user'] }) {
  const fullName = `${user.first_name} ${user.last_name}`
  const initial = user.first_name.trim().charAt(0).toUpperCase()
  return (
    <Group gap="sm" wrap="nowrap" miw={0}>
      <Text fw={500} truncate="end" visibleFrom="xs" miw={0}>
        Hello, {fullName}
      </Text>
      <Menu position="bottom-end" shadow="md" width={200}>
        <Menu.Target>
          <UnstyledButton aria-label="Account menu" style={{ borderRadius: 999 }}>
            <Group gap={4} wrap="nowrap">
              <Avatar src={user.image_path} alt={fullName} color="glow" radius="xl">
                {initial}
              </Avatar>
              <IconChevronDown size={16} aria-hidden />
            </Group>
          </UnstyledButton>
        </Menu.Target>
        <Menu.Dropdown>
          <Menu.Label hiddenFrom="xs">{fullName}</Menu.Label>
          <MenuItemLink
            to="/personnel/$userId"
            params={{ userId: String(user.id) }}
            leftSection={<IconUserCircle size={16} aria-hidden />}
          >
            My Profile
          </MenuItemLink>
          <MenuItemLink
            to="/logout"
            preload={false}
            leftSection={<IconLogout size={16} aria-hidden />}
          >
            Logout
          </MenuItemLink>
        </Menu.Dropdown>
      </Menu>
    </Group>
  )
}
