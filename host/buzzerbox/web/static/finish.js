// The photo finish page: the last race, every press and its lead, false starts.
import { run } from "./common.js";
import { $ } from "./dom.js";
import { renderPhoto } from "./photo.js";
import { t } from "./i18n.js";

run((state) => {
  const title = $("#photo-title");
  const rounds = state.game && state.game !== "twinit" && state.round;
  title.textContent = rounds ? t("Photo finish · round {round}", { round: state.round }) : t("Photo finish");
  renderPhoto($("#photo"), state);
});
