/** Who the platform is: its surface name and its own name. Light on purpose: the Control UI bundles it. */
export const emailSurface = { surface: "email", title: "E-mail" } as const;
