/** Who the platform is: its surface name and its own name. Light on purpose: the Control UI bundles it. */
export const matrixSurface = { surface: "matrix", title: "Matrix" } as const;
