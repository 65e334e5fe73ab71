package io.wheeltimer.dashboard;

/**
 * What a page shows to the request it answers.
 *
 * @param path the dashboard's path, for links and forms
 * @param showData whether data and last errors are shown unmasked
 * @param writes whether write controls are rendered
 * @param tokenFields the hidden fields every write form carries
 */
record Viewer(String path, boolean showData, boolean writes, String tokenFields) {

    /** {@code value} as this viewer may see it: masked unless data is shown, empty for null. */
    String data(String value) {
        if (value == null) {
            return "";
        }
        return showData ? Html.text(value) : Html.MASK;
    }
}
