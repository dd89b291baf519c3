from flue_tui.ui.mdtext import task_boxes


def test_task_list_items_become_boxes_outside_code():
    text = "Plan:\n\n- [x] read it\n- [ ] fix it\n  1. [X] nested\n\n```md\n- [x] literal\n```\n- [link](x)"
    assert task_boxes(text) == (
        "Plan:\n\n- ☑ read it\n- ☐ fix it\n  1. ☑ nested\n\n```md\n- [x] literal\n```\n- [link](x)"
    )
    assert task_boxes(task_boxes(text)) == task_boxes(text)
    assert task_boxes("- [x") == "- [x"  # a streamed half item waits for the rest
