// Placeholder: filled in by the port of this area to the store seam.
// biome-ignore lint/suspicious/noEmptyInterface: filled in by the port of this area
export interface MaintenanceStore {}
