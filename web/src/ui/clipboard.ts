// Copying text and saving files from the page.
import { t } from "../i18n/i18n";

// Copies `text`, then says so on `button` for a moment.
export async function copyText(text: string, button: HTMLButtonElement): Promise<void> {
  const label = button.textContent;
  try {
    await navigator.clipboard.writeText(text);
    button.textContent = t("share.copied");
  } catch {
    button.textContent = t("share.copyFailed");
  }
  window.setTimeout(() => (button.textContent = label), 1500);
}

export function download(filename: string, type: string, text: string): void {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const link = document.createElement("a");
  link.href = url;
  link.download = filename;
  document.body.append(link);
  link.click();
  link.remove();
  window.setTimeout(() => URL.revokeObjectURL(url), 0);
}
