"""The 22 language codes (SPEC §2) with the names prompts use: Chinese in the bundled InstTrans
prompts, English in the Judge prompts."""

from __future__ import annotations

# code: (English name, Chinese name), in the SPEC's order.
LANGUAGES: dict[str, tuple[str, str]] = {
    "zh": ("Chinese", "中文"), "en": ("English", "英语"), "ja": ("Japanese", "日语"), "ko": ("Korean", "韩语"),
    "vi": ("Vietnamese", "越南语"), "es": ("Spanish", "西班牙语"), "de": ("German", "德语"),
    "fr": ("French", "法语"), "it": ("Italian", "意大利语"), "pt": ("Portuguese", "葡萄牙语"),
    "ru": ("Russian", "俄语"), "ro": ("Romanian", "罗马尼亚语"), "pl": ("Polish", "波兰语"),
    "sv": ("Swedish", "瑞典语"), "nl": ("Dutch", "荷兰语"), "tr": ("Turkish", "土耳其语"),
    "id": ("Indonesian", "印尼语"), "ms": ("Malay", "马来语"), "ar": ("Arabic", "阿拉伯语"),
    "fil": ("Filipino", "菲律宾语"), "th": ("Thai", "泰语"), "hi": ("Hindi", "印地语"),
}
ENGLISH_NAMES: dict[str, str] = {code: names[0] for code, names in LANGUAGES.items()}
CHINESE_NAMES: dict[str, str] = {code: names[1] for code, names in LANGUAGES.items()}
