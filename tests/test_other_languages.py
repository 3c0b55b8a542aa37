"""A question in French, Spanish or German read in English (assistant/other_languages.py)."""
from __future__ import annotations

import pytest

from workshop_lib.assistant.other_languages import in_english


@pytest.mark.parametrize(("question", "reading"), [
    ("Wie lange ist die Kota Singa?", "how long is the Kota Singa?"),
    ("¿Cuántos contenedores hay en el viaje 155S?", "how many containers are there in the voyage 155S?"),
    ("Quel est le pavillon du navire Manulani ?", "which is the flag of the ship Manulani?"),
    # a German verb's prefix at the clause's end is joined to it again: "kommen ... an" arrive
    ("Welche Reisen kommen im Juli an?", "which voyages arrive in the July?"),
    ("Welche Reisen kommen im Juli zurück?", None),  # "zurück" is no word the glossary knows
])
def test_a_question_is_read_word_by_word_and_names_and_codes_stay(question, reading):
    assert in_english(question) == reading


def test_english_is_not_read_again_and_a_word_of_no_reading_stops_it():
    assert in_english("how many ships fly the Panama flag?") is None
    assert in_english("¿Cuánto le facturaría a mi cliente?") is None  # "facturaría" has no reading


@pytest.mark.parametrize(("question", "reading"), [
    ("Quel est le plus grand porte-conteneurs de la flotte en EVP ?", "which is the biggest container ship of the fleet in TEU?"),
    ("¿Cuántos viajes salen de Busan (todos los estados)?", "how many voyages depart from Busan?"),
    ("¿Cuántos viajes salen de Amberes?", "how many voyages depart from Antwerp?"),
])
def test_nouns_of_shipping_abbreviations_ports_and_asides_are_read(question, reading):
    assert in_english(question) == reading


def test_french_son_after_a_verb_is_its_and_va_is_going():
    from workshop_lib.assistant import other_languages
    assert other_languages.in_english("Où va le YM Tiptop et quelle est son ETA ?") == \
        "where is going the YM Tiptop and which is its ETA?"


@pytest.mark.parametrize(("question", "reading"), [
    # a German compound of English words is read as those words, a name written with a hyphen stays
    ("Wie viele 20-Fuß-Open-Top-Container gibt es in Piräus?", "how many 20' Open Top Container are there in Piraeus?"),
    ("Welcher Allianz gehört Hapag-Lloyd an?", "which alliance belongs to Hapag-Lloyd?"),
    # German writes a day with a full stop ("am 4. Juni")
    ("Wie viele Schiffe sollen am 4. Juni ankommen?", "how many ships on 4 June arrive?"),
    ("Wie viele Schiffe hat Wan Hai in der Flotte?", "how many ships has Wan Hai in the fleet?"),
    # a compound whose parts the glossary reads, and a participle German puts last
    ("Wie viele 45-Fuß-High-Cube-Kühlcontainer gibt es in Piräus?",
     "how many 45' High Cube reefer container are there in Piraeus?"),
    ("Welche Schiffe wurden 2019 gebaut?", "which ships were built in 2019?"),
])
def test_german_compounds_days_and_capitalised_nouns_are_read(question, reading):
    assert in_english(question) == reading


@pytest.mark.parametrize(("question", "reading"), [
    # a size said after the box's noun goes first, as English puts it
    ("Combien de conteneurs dry 20 pieds sont disponibles à Santos ?", "how many 20' dry containers are available at Santos?"),
    ("¿Cuál es el peso bruto medio de un contenedor ventilado de 20 pies?",
     "which is the gross weight average of a 20' ventilated container?"),
    # "que" after a comparison is "than"; "peso muerto" is deadweight; "se trouve" is "is"
    ("¿Tiene el Kota Ratna más peso muerto que el MSC Aurelia?", "has the Kota Ratna more deadweight than the MSC Aurelia?"),
    ("Où se trouve la date d'arrivée ?", "where is the date of arrival?"),
])
def test_sizes_after_the_noun_comparisons_and_where_a_thing_is_are_read(question, reading):
    assert in_english(question) == reading


@pytest.mark.parametrize(("question", "reading"), [
    # what a user says of their own things in French or Spanish: an office, a move, a letter of credit
    ("Depuis mardi notre agence est à Lyon.", "from Tuesday our office is at Lyon."),
    ("¿Cuándo vence la carta de crédito?", "when expires the letter of credit?"),
])
def test_statements_of_their_own_things_are_read(question, reading):
    assert in_english(question) == reading


@pytest.mark.parametrize(("question", "reading"), [
    # a country's adjective with the language's endings is the English adjective
    ("Welche Schiffe fahren unter panamaischer Flagge?", "which ships sail under Panama flag?"),
    ("¿Cuántos buques navegan con bandera liberiana?", "how many ships sail with flag Liberian?"),
    # a name written with its accents is read in plain letters
    ("¿Y el drayage en Róterdam?", "and the drayage in Roterdam?"),
])
def test_country_adjectives_and_names_with_accents_are_read(question, reading):
    assert in_english(question) == reading


def test_small_words_of_a_sentence_are_read():
    # a reflexive "se" is no word of the reading; "genau" says exactly
    assert in_english("¿En qué tabla se guarda el puerto de destino?") == "in what table stored the port of destination?"
    assert in_english("Wann genau fährt die Kota Singa ab?") == "when exactly departs the Kota Singa?"


@pytest.mark.parametrize(("question", "reading"), [
    # the common words of questions, beside the glossary's shipping words: a nationality with its ending, a
    # participle, a noun in the plural
    ("Welche Schiffe fahren unter deutscher Flagge?", "which ships sail under German flag?"),
    ("¿Cuántos contenedores hay en total en los manifiestos?", "how many containers are there in total in the manifests?"),
])
def test_the_common_words_of_questions_are_read(question, reading):
    assert in_english(question) == reading


def test_a_common_word_that_is_english_too_is_not_in_the_common_words():
    from workshop_lib.assistant import glossary
    common = glossary.common_words()
    assert not {"hier", "art", "boot", "will", "die", "also", "fast"} & set(common)
    assert all(k.isalpha() and k == k.lower() and len(k) > 2 for k in common)
